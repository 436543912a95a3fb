package io.resumekit.conformance;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.util.HashSet;
import java.util.Set;

/**
 * The count job's {@code count} operator with its per-key count held in another kind of state (the
 * job's {@code "state"}), for the upgrade scenarios (a Flink 1.20 savepoint restored by Flink 2.x):
 * {@code "pojo"} a POJO (PojoSerializer), {@code "kryo"} a class Flink cannot analyse (final fields,
 * no default constructor: a generic type, serialized by Kryo — Kryo 2 on 1.20, Kryo 5 on 2.x),
 * {@code "listmap"} a MapState count beside a ListState of every id seen (checked against each other
 * when a key is first seen after a restore). Each emits {@code id,key,count} as {@link CountJob.Count}
 * does, so the output judge sees whether the restored count was read back.
 */
final class UpgradeState {
    private UpgradeState() {}

    /** The count function for the job's {@code "state"} ("value", the default, is {@link CountJob.Count}). */
    static KeyedProcessFunction<Integer, Long, String> count(String state) {
        switch (state) {
            case "value":
                return new CountJob.Count();
            case "pojo":
                return new PojoCount();
            case "kryo":
                return new KryoCount();
            case "listmap":
                return new ListMapCount();
            default:
                throw new IllegalArgumentException("unknown job state \"" + state + "\" (known: value, pojo, kryo, listmap)");
        }
    }

    /** A POJO: public, a public no-argument constructor, public fields (Flink's PojoSerializer). */
    public static class Counter {
        public long count;
        public long lastId;

        public Counter() {}
    }

    /** Not a POJO (final fields, no default constructor): Flink serializes it with Kryo. */
    public static final class Tally {
        private final long count;
        private final String last;

        public Tally(long count, String last) {
            this.count = count;
            this.last = last;
        }

        long count() {
            return count;
        }

        @Override
        public String toString() {
            return count + "@" + last;
        }
    }

    /** Counts in a {@code ValueState<Counter>} "pojo". */
    public static final class PojoCount extends KeyedProcessFunction<Integer, Long, String> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Counter> state;

        @Override
        public void open(OpenContext ctx) {
            state = getRuntimeContext().getState(new ValueStateDescriptor<>("pojo", Counter.class));
        }

        @Override
        public void processElement(Long id, Context ctx, Collector<String> out) throws Exception {
            Counter c = state.value();
            if (c == null) {
                c = new Counter();
            }
            c.count++;
            c.lastId = id;
            state.update(c);
            out.collect(id + "," + ctx.getCurrentKey() + "," + c.count);
        }
    }

    /** Counts in a {@code ValueState<Tally>} "kryo" (a generic type). */
    public static final class KryoCount extends KeyedProcessFunction<Integer, Long, String> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Tally> state;

        @Override
        public void open(OpenContext ctx) {
            state = getRuntimeContext().getState(new ValueStateDescriptor<>("kryo", Tally.class));
        }

        @Override
        public void processElement(Long id, Context ctx, Collector<String> out) throws Exception {
            Tally t = state.value();
            long n = t == null ? 1 : t.count() + 1;
            state.update(new Tally(n, "id" + id));
            out.collect(id + "," + ctx.getCurrentKey() + "," + n);
        }
    }

    /** Counts in a {@code MapState<String, Long>} "map" beside a {@code ListState<Long>} "list" of the ids. */
    public static final class ListMapCount extends KeyedProcessFunction<Integer, Long, String> {
        private static final long serialVersionUID = 1L;
        private transient ListState<Long> list;
        private transient MapState<String, Long> map;
        private transient Set<Integer> checked;

        @Override
        public void open(OpenContext ctx) {
            list = getRuntimeContext().getListState(new ListStateDescriptor<>("list", Long.class));
            map = getRuntimeContext().getMapState(new MapStateDescriptor<>("map", String.class, Long.class));
            checked = new HashSet<>();
        }

        @Override
        public void processElement(Long id, Context ctx, Collector<String> out) throws Exception {
            Long c = map.get("count");
            long have = c == null ? 0 : c;
            if (checked.add(ctx.getCurrentKey())) {
                long n = 0;
                for (Long ignored : list.get()) {
                    n++;
                }
                if (n != have) {
                    throw new IllegalStateException("key " + ctx.getCurrentKey() + ": ListState \"list\" holds " + n
                            + " ids, MapState \"map\" counts " + have + ": the restored state does not agree");
                }
            }
            list.add(id);
            map.put("count", have + 1);
            out.collect(id + "," + ctx.getCurrentKey() + "," + (have + 1));
        }
    }
}
