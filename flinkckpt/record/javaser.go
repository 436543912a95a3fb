package record

import (
	"errors"
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt/internal/javaio"
)

// Flink's HA store keeps Java-serialized objects (java.io.ObjectOutputStream):
// the state handle in a ConfigMap value or ZooKeeper node, the
// CompletedCheckpoint in the file that handle points to. This file reads
// that stream format (Java Object Serialization Specification, chapter 6)
// into a small tree of class names and field values, enough to take a
// handle's file path and a checkpoint's id, job and external pointer out
// of it. It runs no code and knows no class: it follows the grammar only.
// Objects written by a custom writeObject are read as their default fields
// followed by the annotation's contents, as the grammar lays them out.

// The stream's constants.
const (
	tcNull           = 0x70
	tcReference      = 0x71
	tcClassDesc      = 0x72
	tcObject         = 0x73
	tcString         = 0x74
	tcArray          = 0x75
	tcClass          = 0x76
	tcBlockData      = 0x77
	tcEndBlockData   = 0x78
	tcReset          = 0x79
	tcBlockDataLong  = 0x7A
	tcException      = 0x7B
	tcLongString     = 0x7C
	tcProxyClassDesc = 0x7D
	tcEnum           = 0x7E

	baseHandle = 0x7E0000

	scWriteMethod    = 0x01
	scBlockData      = 0x08
	scSerializable   = 0x02
	scExternalizable = 0x04

	// maxDepth bounds nested objects: Flink's deepest objects (a
	// checkpoint's operator states, their subtask states, their handles)
	// nest a few dozen levels.
	maxDepth = 128
)

// jclass is a class descriptor.
type jclass struct {
	name   string
	flags  byte
	fields []jfield
	super  *jclass
}

type jfield struct {
	typ  byte // B C D F I J S Z [ L
	name string
}

// jobject is an object read from the stream: its class name and the
// values of its serializable fields (of every class in its hierarchy;
// a subclass field shadows a superclass one of the same name), plus the
// objects a custom writeObject or an Externalizable wrote after them.
type jobject struct {
	class  string
	fields map[string]any
	extra  []any
}

// jenum is an enum constant.
type jenum struct{ class, name string }

// field returns the named field's value, nil when absent.
func (o *jobject) field(name string) any {
	if o == nil {
		return nil
	}
	return o.fields[name]
}

func (o *jobject) object(name string) *jobject {
	v, _ := o.field(name).(*jobject)
	return v
}

func (o *jobject) str(name string) (string, bool) {
	v, ok := o.field(name).(string)
	return v, ok
}

func (o *jobject) long(name string) (int64, bool) {
	v, ok := o.field(name).(int64)
	return v, ok
}

// errJavaStream marks a stream that does not follow the grammar.
var errJavaStream = errors.New("not a Java serialization stream")

// javaReader reads one stream.
type javaReader struct {
	c       javaio.Cursor
	handles []any
	depth   int
}

// readJavaObject reads the first object of a serialized stream.
func readJavaObject(what string, data []byte) (any, error) {
	r := &javaReader{c: javaio.Cursor{What: what, Buf: data, NewErr: func(what string, off int64, msg string) error {
		return fmt.Errorf("%s: byte %d: %s: %w", what, off, msg, errJavaStream)
	}}}
	if r.c.U16("magic") != 0xACED {
		r.c.Off = 0
		r.c.Fail("magic is not AC ED")
		return nil, r.c.Err
	}
	if v := r.c.U16("version"); r.c.Err == nil && v != 5 {
		r.c.Fail("stream version %d, want 5", v)
	}
	v := r.content()
	if r.c.Err != nil {
		return nil, r.c.Err
	}
	return v, nil
}

func (r *javaReader) newHandle(v any) int {
	r.handles = append(r.handles, v)
	return len(r.handles) - 1
}

// content reads one object (or a block of data, returned as nil with
// blockData true in contentOrEnd).
func (r *javaReader) content() any {
	v, _ := r.contentOrEnd()
	return v
}

// contentOrEnd reads one content item; end is true at TC_ENDBLOCKDATA.
func (r *javaReader) contentOrEnd() (v any, end bool) {
	if r.c.Err != nil {
		return nil, true
	}
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > maxDepth {
		r.c.Fail("objects nested deeper than %d", maxDepth)
		return nil, true
	}
	tc := r.c.U8("type code")
	switch tc {
	case tcNull:
		return nil, false
	case tcReference:
		h := r.c.I32("handle") - baseHandle
		if r.c.Err == nil && (h < 0 || int(h) >= len(r.handles)) {
			r.c.Fail("reference to unknown handle %#x", h+baseHandle)
			return nil, true
		}
		if r.c.Err != nil {
			return nil, true
		}
		return r.handles[h], false
	case tcString:
		return r.newString(int(r.c.U16("string length"))), false
	case tcLongString:
		n := r.c.I64("long string length")
		if r.c.Err == nil && (n < 0 || n > int64(r.c.Left())) {
			r.c.Fail("long string of %d bytes, %d left", n, r.c.Left())
		}
		return r.newString(int(n)), false
	case tcClassDesc, tcProxyClassDesc:
		r.c.Off--
		return r.classDesc(), false
	case tcClass:
		cd := r.classDesc()
		r.newHandle(cd)
		return cd, false
	case tcObject:
		return r.object(), false
	case tcArray:
		return r.array(), false
	case tcEnum:
		cd := r.classDesc()
		e := &jenum{}
		if cd != nil {
			e.class = cd.name
		}
		r.newHandle(e)
		name, _ := r.content().(string)
		e.name = name
		return e, false
	case tcBlockData:
		r.c.Take(int(r.c.U8("block length")), "block data")
		return nil, false
	case tcBlockDataLong:
		r.c.Take(r.c.Count("block length", 1), "block data")
		return nil, false
	case tcEndBlockData:
		return nil, true
	case tcReset:
		r.handles = r.handles[:0]
		return nil, false
	case tcException:
		r.c.Fail("the stream records an exception thrown while it was written")
	default:
		r.c.Off--
		r.c.Fail("unknown type code %#02x", tc)
	}
	return nil, true
}

func (r *javaReader) newString(n int) string {
	b := r.c.Take(n, "string")
	if r.c.Err != nil {
		return ""
	}
	s, ok := javaio.ModifiedUTF8(b)
	if !ok {
		r.c.Off -= n
		r.c.Fail("string: invalid modified UTF-8")
		return ""
	}
	r.newHandle(s)
	return s
}

// classDesc reads a class descriptor: new, proxy, null or a reference.
func (r *javaReader) classDesc() *jclass {
	if r.c.Err != nil {
		return nil
	}
	tc := r.c.U8("class descriptor")
	switch tc {
	case tcNull:
		return nil
	case tcReference:
		r.c.Off--
		v, _ := r.contentOrEnd()
		cd, ok := v.(*jclass)
		if !ok && r.c.Err == nil {
			r.c.Fail("class descriptor reference to a %T", v)
		}
		return cd
	case tcClassDesc:
		cd := &jclass{name: r.c.UTF("class name")}
		r.c.I64("serialVersionUID")
		r.newHandle(cd)
		cd.flags = r.c.U8("class flags")
		n := int(r.c.U16("field count"))
		if r.c.Err == nil && n*3 > r.c.Left() {
			r.c.Fail("%d fields need at least %d bytes, %d left", n, n*3, r.c.Left())
		}
		for i := 0; i < n && r.c.Err == nil; i++ {
			f := jfield{typ: r.c.U8("field type")}
			f.name = r.c.UTF("field name")
			switch f.typ {
			case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z':
			case '[', 'L':
				if _, ok := r.content().(string); !ok && r.c.Err == nil {
					r.c.Fail("field %s: class name is not a string", f.name)
				}
			default:
				r.c.Fail("field %s: unknown type %q", f.name, f.typ)
			}
			cd.fields = append(cd.fields, f)
		}
		r.annotation(nil)
		cd.super = r.classDesc()
		return cd
	case tcProxyClassDesc:
		cd := &jclass{name: "(proxy)", flags: scSerializable}
		r.newHandle(cd)
		n := r.c.Count("proxy interface count", 2)
		for i := 0; i < n && r.c.Err == nil; i++ {
			r.c.UTF("proxy interface")
		}
		r.annotation(nil)
		cd.super = r.classDesc()
		return cd
	}
	r.c.Off--
	r.c.Fail("type code %#02x where a class descriptor belongs", tc)
	return nil
}

// annotation reads contents up to TC_ENDBLOCKDATA, keeping the objects in
// into when it is not nil.
func (r *javaReader) annotation(into *[]any) {
	for r.c.Err == nil {
		v, end := r.contentOrEnd()
		if end {
			return
		}
		if into != nil && v != nil {
			*into = append(*into, v)
		}
	}
}

// hierarchy returns the class and its superclasses, topmost first.
func hierarchy(cd *jclass) []*jclass {
	var out []*jclass
	for c := cd; c != nil && len(out) <= maxDepth; c = c.super {
		out = append(out, c)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func (r *javaReader) object() any {
	cd := r.classDesc()
	if r.c.Err != nil {
		return nil
	}
	if cd == nil {
		r.c.Fail("object without a class descriptor")
		return nil
	}
	o := &jobject{class: cd.name, fields: map[string]any{}}
	r.newHandle(o)
	for _, c := range hierarchy(cd) {
		if r.c.Err != nil {
			break
		}
		switch {
		case c.flags&scExternalizable != 0:
			if c.flags&scBlockData == 0 {
				r.c.Fail("class %s: externalizable data of protocol 1 cannot be read without the class", c.name)
				return nil
			}
			r.annotation(&o.extra)
		case c.flags&scSerializable != 0:
			for _, f := range c.fields {
				o.fields[f.name] = r.value(f.typ)
			}
			if c.flags&scWriteMethod != 0 {
				r.annotation(&o.extra)
			}
		}
	}
	return o
}

// value reads one field or array element of the type.
func (r *javaReader) value(typ byte) any {
	switch typ {
	case 'B':
		return int64(int8(r.c.U8("byte")))
	case 'C':
		return int64(r.c.U16("char"))
	case 'S':
		return int64(int16(r.c.U16("short")))
	case 'I':
		return int64(r.c.I32("int"))
	case 'J':
		return r.c.I64("long")
	case 'F':
		r.c.Take(4, "float")
		return nil
	case 'D':
		r.c.Take(8, "double")
		return nil
	case 'Z':
		return r.c.U8("boolean") != 0
	}
	return r.content()
}

var primitiveSize = map[byte]int{'B': 1, 'Z': 1, 'C': 2, 'S': 2, 'I': 4, 'F': 4, 'J': 8, 'D': 8}

// array reads an array. Primitive arrays are skipped (a state handle's
// inline bytes are not needed); object arrays keep their elements.
func (r *javaReader) array() any {
	cd := r.classDesc()
	if r.c.Err != nil {
		return nil
	}
	if cd == nil || len(cd.name) < 2 || cd.name[0] != '[' {
		r.c.Fail("array without an array class")
		return nil
	}
	r.newHandle(nil)
	h := len(r.handles) - 1
	elem := cd.name[1]
	if size, ok := primitiveSize[elem]; ok {
		n := r.c.Count("array length", size)
		r.c.Take(n*size, "array")
		return nil
	}
	if elem != '[' && elem != 'L' {
		r.c.Fail("array class %s", strings.ToValidUTF8(cd.name, "?"))
		return nil
	}
	n := r.c.Count("array length", 1)
	out := make([]any, 0, min(n, 1024))
	for i := 0; i < n && r.c.Err == nil; i++ {
		out = append(out, r.content())
	}
	r.handles[h] = out
	return out
}
