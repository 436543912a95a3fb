package sourcestate_test

import (
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// A savepoint of a job reading a Kafka topic and a MySQL table: where
// does each source continue?
func ExampleDecode() {
	md := &metadata.Checkpoint{Version: 4, CheckpointID: 42, Savepoint: true}
	for _, s := range []flinkckpttest.Source{
		flinkckpttest.KafkaSource("orders-source", "orders", 120, 98, sourcestate.OffsetEarliest),
		flinkckpttest.MySQLSource("customers-cdc", sourcestate.BinlogOffset{File: "mysql-bin.000017", Pos: 4711, GTIDs: "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77"}),
	} {
		op, _ := s.Operator(md.Version, nil)
		md.Operators = append(md.Operators, op)
	}
	data, _ := flinkckpttest.Encode(md)

	cp, err := metadata.Parse(data, nil)
	if err != nil {
		panic(err)
	}
	st, err := sourcestate.Decode(cp, nil)
	if err != nil {
		panic(err)
	}
	for _, src := range st.Sources {
		fmt.Println(src.OperatorID, src.Kind)
		switch src.Kind {
		case sourcestate.KindKafka:
			positions, _ := src.Kafka.Positions()
			for _, p := range positions {
				if p.Marker != sourcestate.MarkerNone {
					fmt.Printf("  %s/%d %s (not started)\n", p.Topic, p.Partition, p.Marker)
					continue
				}
				fmt.Printf("  %s/%d next offset %d\n", p.Topic, p.Partition, p.Offset)
			}
		case sourcestate.KindMySQLCDC:
			p, _, err := src.MySQL.Position()
			if err != nil {
				fmt.Println("  no binlog position:", err)
				continue
			}
			fmt.Printf("  %s:%d gtids %s\n", p.File, p.Pos, p.GTIDs)
		}
	}
	// Output:
	// 45b0254a46cabbc3efeea5d2e170ea5b kafka
	//   orders/0 next offset 120
	//   orders/1 next offset 98
	//   orders/2 earliest (not started)
	// c86b7ae47ff7f88f3ce2f796a83191f9 mysql-cdc
	//   mysql-bin.000017:4711 gtids 3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77
}

// A Flink CDC Postgres stream split's offset gives the WAL position in
// PostgreSQL's text form.
func ExampleFormatLSN() {
	fmt.Println(sourcestate.FormatLSN(23803720))
	lsn, _ := sourcestate.ParseLSN("0/16B3748")
	fmt.Println(lsn)
	// Output:
	// 0/16B3748
	// 23803720
}
