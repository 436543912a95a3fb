package sourcestate

// Paimon's splits reach Flink state as Java serialization
// (InstantiationUtil.serializeObject). DataSplit, IncrementalSplit and
// ChainSplit write themselves with writeObject and never call
// defaultWriteObject, so the stream is one class descriptor followed by
// block data holding the split's own DataOutputView encoding. javaObject
// walks exactly that shape (Java Object Serialization Specification,
// chapter 6) and returns the class name and the block data; anything else —
// a superclass, field values, nested objects — is reported, not
// interpreted.

const (
	tcNull          = 0x70
	tcReference     = 0x71
	tcClassDesc     = 0x72
	tcObject        = 0x73
	tcString        = 0x74
	tcBlockData     = 0x77
	tcEndBlockData  = 0x78
	tcBlockDataLong = 0x7A

	scWriteMethod  = 0x01
	scSerializable = 0x02
)

// javaObject reads one serialized object with custom writeObject data at
// c's position. The block data is copied only when it spans several
// blocks, into one buffer; an empty block is refused.
func javaObject(c *cursor) (class string, data []byte) {
	if m := c.Take(4, "Java serialization magic"); c.Err == nil && (m[0] != 0xAC || m[1] != 0xED || m[2] != 0 || m[3] != 5) {
		c.Off -= 4
		c.Fail("not a Java serialization stream (magic % x)", m)
		return "", nil
	}
	if t := c.U8("object type code"); c.Err == nil && t != tcObject {
		c.Off--
		c.Fail("type code 0x%02x, want an object (0x73)", t)
		return "", nil
	}
	if t := c.U8("class descriptor type code"); c.Err == nil && t != tcClassDesc {
		c.Off--
		c.Fail("type code 0x%02x, want a class descriptor (0x72)", t)
		return "", nil
	}
	class = c.UTF("class name")
	c.I64("serialVersionUID")
	flags := c.U8("class flags")
	if c.Err == nil && flags&(scWriteMethod|scSerializable) != scWriteMethod|scSerializable {
		c.Off--
		c.Fail("class %s has flags 0x%02x: not a serializable class with its own writeObject", class, flags)
		return class, nil
	}
	fields := int(c.U16("field count"))
	for i := 0; i < fields && c.Err == nil; i++ {
		code := c.U8("field type code")
		c.UTF("field name")
		switch code {
		case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z':
		case 'L', '[':
			switch t := c.U8("field class name"); t {
			case tcString:
				c.UTF("field class name")
			case tcReference:
				c.I32("field class name handle")
			default:
				if c.Err == nil {
					c.Off--
					c.Fail("field class name type code 0x%02x", t)
				}
			}
		default:
			if c.Err == nil {
				c.Off--
				c.Fail("field type code 0x%02x", code)
			}
		}
	}
	if t := c.U8("end of class annotations"); c.Err == nil && t != tcEndBlockData {
		c.Off--
		c.Fail("class annotation type code 0x%02x: annotations are not expected", t)
	}
	if t := c.U8("superclass"); c.Err == nil && t != tcNull {
		c.Off--
		c.Fail("class %s has a serializable superclass (type code 0x%02x): not a Paimon split", class, t)
	}
	// The blocks' bytes are appended into one buffer (the first block is
	// used in place when it is the only one). ObjectOutputStream never
	// writes an empty block (BlockDataOutputStream.drain returns at 0), so
	// one is refused: millions of them would cost far more than their bytes.
	blocks := 0
	for c.Err == nil {
		t := c.U8("object data type code")
		n := 0
		switch t {
		case tcBlockData:
			n = int(c.U8("block data length"))
		case tcBlockDataLong:
			n = c.Count("block data length", 1)
		case tcEndBlockData:
		default:
			if c.Err == nil {
				c.Off--
				c.Fail("object data type code 0x%02x: only block data is expected", t)
			}
		}
		if c.Err != nil || t == tcEndBlockData {
			break
		}
		if n == 0 {
			c.Off -= 2
			if t == tcBlockDataLong {
				c.Off -= 3
			}
			c.Fail("empty block data (Java's ObjectOutputStream never writes one)")
			break
		}
		b := c.Take(n, "block data")
		if blocks++; blocks == 1 {
			data = b // Take's slice has no spare capacity: a second block copies
		} else {
			data = append(data, b...)
		}
	}
	if c.Err != nil {
		return class, nil
	}
	return class, data
}
