package metadata

import "encoding/binary"

// javaWalker checks that the v4+ trailer is one complete Java serialization
// object (CheckpointProperties), so that a truncated or padded trailer is an
// error like any other truncation. It follows the stream grammar of the Java
// Object Serialization Specification (chapter 6) — class descriptors, field
// values by type code, handles — without giving any class a meaning.
type javaWalker struct {
	d       *decoder
	handles []*javaClass // nil for handles that are not class descriptors
	depth   int
}

type javaClass struct {
	name   string
	flags  byte
	fields []byte // type codes
	super  *javaClass
}

const (
	tcNull = 0x70 + iota
	tcReference
	tcClassDesc
	tcObject
	tcString
	tcArray
	tcClass
	tcBlockData
	tcEndBlockData
	tcReset
	tcBlockDataLong
	tcException
	tcLongString
	tcProxyClassDesc
	tcEnum
)

const javaBaseHandle = 0x7E0000

func (w *javaWalker) fail(format string, args ...any) {
	w.d.fail("checkpoint properties (Java serialization)", format, args...)
}

// content reads one content item; it returns the class descriptor when the
// item is one (or a reference to one).
func (w *javaWalker) content() *javaClass {
	d := w.d
	if d.err != nil {
		return nil
	}
	if w.depth >= maxHandleDepth {
		w.fail("nested deeper than %d", maxHandleDepth)
		return nil
	}
	w.depth++
	defer func() { w.depth-- }()
	start := d.off
	tc := d.u8("checkpoint properties", "")
	switch tc {
	case tcNull:
	case tcReference:
		h := int(d.i32("checkpoint properties handle", "")) - javaBaseHandle
		if d.err == nil && (h < 0 || h >= len(w.handles)) {
			d.off = start
			w.fail("reference to unknown handle %#x", h+javaBaseHandle)
			return nil
		}
		if d.err == nil {
			return w.handles[h]
		}
	case tcClassDesc:
		name := d.utf("class name", "")
		d.need(9, "serialVersionUID and flags", "")
		if d.err != nil {
			return nil
		}
		d.off += 8
		c := &javaClass{name: name, flags: d.u8("class flags", "")}
		w.handles = append(w.handles, c)
		n := int(uint16(d.u8("field count", ""))<<8 | uint16(d.u8("field count", "")))
		for i := 0; i < n && d.err == nil; i++ {
			code := d.u8("field type", "")
			d.utf("field name", "")
			switch code {
			case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z':
			case 'L', '[':
				w.content() // class name string
			default:
				d.off--
				w.fail("field type %q", code)
			}
			c.fields = append(c.fields, code)
		}
		w.annotation()
		c.super = w.content()
		return c
	case tcProxyClassDesc:
		c := &javaClass{flags: 0x02}
		w.handles = append(w.handles, c)
		n := d.count("proxy interface count", "", 2)
		for i := 0; i < n && d.err == nil; i++ {
			d.utf("proxy interface", "")
		}
		w.annotation()
		c.super = w.content()
		return c
	case tcObject:
		c := w.content()
		w.handles = append(w.handles, nil)
		var chain []*javaClass
		for k := c; k != nil && len(chain) < maxHandleDepth; k = k.super {
			chain = append(chain, k)
		}
		for i := len(chain) - 1; i >= 0 && d.err == nil; i-- {
			k := chain[i]
			switch {
			case k.flags&0x04 != 0: // SC_EXTERNALIZABLE: block data (protocol 2)
				w.annotation()
			default:
				for _, code := range k.fields {
					w.value(code)
				}
				if k.flags&0x01 != 0 { // SC_WRITE_METHOD
					w.annotation()
				}
			}
		}
	case tcString:
		d.utf("string", "")
		w.handles = append(w.handles, nil)
	case tcLongString:
		n := d.i64("long string length", "")
		if d.err == nil && (n < 0 || n > int64(d.left())) {
			w.fail("long string of %d bytes, %d left", n, d.left())
			return nil
		}
		d.off += int(n)
		w.handles = append(w.handles, nil)
	case tcArray:
		c := w.content()
		w.handles = append(w.handles, nil)
		elem := byte('L')
		if c != nil && len(c.name) >= 2 && c.name[0] == '[' {
			elem = c.name[1]
		}
		n := d.count("array length", "", 1)
		for i := 0; i < n && d.err == nil; i++ {
			w.value(elem)
		}
	case tcEnum:
		w.content()
		w.handles = append(w.handles, nil)
		w.content() // constant name
	case tcClass:
		w.content()
		w.handles = append(w.handles, nil)
	case tcBlockData:
		n := int(d.u8("block data length", ""))
		if d.need(n, "block data", "") {
			d.off += n
		}
	case tcBlockDataLong:
		n := d.count("block data length", "", 1)
		d.off += n
	default:
		if d.err == nil {
			d.off = start
			w.fail("unexpected type code %#x", tc)
		}
	}
	return nil
}

// primitiveSizes are the sizes of primitive field values by type code.
var primitiveSizes = map[byte]int{'B': 1, 'C': 2, 'D': 8, 'F': 4, 'I': 4, 'J': 8, 'S': 2, 'Z': 1}

// value reads one field value of the given type code.
func (w *javaWalker) value(code byte) {
	if n, ok := primitiveSizes[code]; ok {
		if w.d.need(n, "field value", "") {
			w.d.off += n
		}
		return
	}
	w.content()
}

// annotation reads contents up to TC_ENDBLOCKDATA.
func (w *javaWalker) annotation() {
	d := w.d
	for d.err == nil {
		if !d.need(1, "annotation", "") {
			return
		}
		if d.buf[d.off] == tcEndBlockData {
			d.off++
			return
		}
		w.content()
	}
}

// walkJava checks buf[d.off:] holds the stream magic and exactly one
// complete top-level object.
func walkJava(d *decoder) {
	if !d.need(4, "checkpoint properties", "") {
		return
	}
	if binary.BigEndian.Uint32(d.buf[d.off:]) != 0xACED0005 {
		d.fail("checkpoint properties", "want a Java serialization stream (AC ED 00 05)")
		return
	}
	d.off += 4
	w := &javaWalker{d: d}
	w.content()
	if d.err == nil && d.left() > 0 {
		d.fail("checkpoint properties", "%d bytes after the properties object", d.left())
	}
}
