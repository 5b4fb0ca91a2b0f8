// Compiled at run time by Janino, once per JVM, for lineage_operators.spark.jvm.builders
// (CompiledBuilder). Each method is one of JvmTools' method-handle combinators done in one py4j
// call: the pure-py4j way costs 5-10 round trips per combinator (class and method look-ups,
// argument arrays element by element, reflection on MethodHandles' statics), and the capture's
// one-time set-up composes a few thousand handles. The handles built here are the same compositions as the Python ones
// (same JDK calls in the same order), so the functions give the same texts; Py4jBuilder keeps the
// pure-py4j way as the fallback where this class cannot be compiled. It also holds the capture's two
// compiled listeners (query ends, RDD-only job starts), which need no per-capture compile.
// Janino compiles a subset of Java: no generics, lambdas or enhanced for loops here.
package lineage_operators;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleProxies;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.HashMap;

public class Handles {
    /** Separates the parameter class names of a step given as one string. */
    private static final String SEP = "\u001f";

    private final MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    private final HashMap classes = new HashMap();
    private final MethodType oo = MethodType.methodType(Object.class, Object.class);
    /** JvmTools' NONE: the text of an absent field. */
    private final String none = "\u0015";
    private final MethodHandle nothing;
    private final MethodHandle toText;
    private final MethodHandle isInstance;
    private final MethodHandle stringJoin;
    private final MethodHandle stringBuilder;

    public Handles() throws Exception {
        nothing = MethodHandles.dropArguments(
            MethodHandles.constant(Object.class, none), 0, new Class[] {Throwable.class, Object.class});
        toText = MethodHandles.insertArguments(
            lookup.unreflect(java.util.Objects.class.getMethod(
                "toString", new Class[] {Object.class, String.class})),
            1, new Object[] {none}).asType(oo);
        isInstance = lookup.findVirtual(
            Class.class, "isInstance", MethodType.methodType(boolean.class, Object.class));
        stringJoin = lookup.findStatic(String.class, "join", MethodType.methodType(
            String.class, new Class[] {CharSequence.class, CharSequence[].class}));
        stringBuilder = lookup.findConstructor(
            StringBuilder.class, MethodType.methodType(void.class, CharSequence.class)).asType(oo);
    }

    // -- classes ---------------------------------------------------------------------------

    /** A class by name (primitives by their keyword), cached; throws if not on the classpath. */
    public Class cls(String name) throws ClassNotFoundException {
        synchronized (classes) {
            Class found = (Class) classes.get(name);
            if (found != null) {
                return found;
            }
        }
        Class found;
        if ("boolean".equals(name)) {
            found = boolean.class;
        } else if ("int".equals(name)) {
            found = int.class;
        } else if ("long".equals(name)) {
            found = long.class;
        } else if ("void".equals(name)) {
            found = void.class;
        } else {
            found = Class.forName(name, false, getClass().getClassLoader());
        }
        synchronized (classes) {
            classes.put(name, found);
        }
        return found;
    }

    public boolean hasClass(String name) {
        try {
            cls(name);
            return true;
        } catch (Throwable e) {
            return false;
        }
    }

    private Class[] classes(String names) throws ClassNotFoundException {
        if (names == null || names.length() == 0) {
            return new Class[0];
        }
        String[] parts = names.split(SEP, -1);
        Class[] found = new Class[parts.length];
        for (int i = 0; i < parts.length; i++) {
            found[i] = cls(parts[i]);
        }
        return found;
    }

    /** {@code prev} (may be null) with the first {@code count} of the items appended: py4j
     * builds a Java array one element per round trip, this takes eight per call. */
    public Object[] seq(Object[] prev, int count, Object a0, Object a1, Object a2, Object a3,
                        Object a4, Object a5, Object a6, Object a7) {
        Object[] items = new Object[] {a0, a1, a2, a3, a4, a5, a6, a7};
        int start = prev == null ? 0 : prev.length;
        Object[] out = new Object[start + count];
        if (prev != null) {
            System.arraycopy(prev, 0, out, 0, start);
        }
        System.arraycopy(items, 0, out, start, count);
        return out;
    }

    // -- getters ---------------------------------------------------------------------------

    /** JvmTools.step: {@code method} of {@code className} on the argument, then the bound
     * arguments (their classes named in {@code params}, joined with SEP). */
    public MethodHandle step(String className, String method, String params, Object[] values)
            throws Exception {
        MethodHandle handle = lookup.unreflect(cls(className).getMethod(method, classes(params)));
        if (values != null && values.length > 0) {
            handle = MethodHandles.insertArguments(handle, 1, values);
        }
        return handle.asType(oo);
    }

    public MethodHandle step0(String className, String method) throws Exception {
        return step(className, method, null, null);
    }

    public MethodHandle step1(String className, String method, String param, Object value)
            throws Exception {
        return step(className, method, param, new Object[] {value});
    }

    /** JvmTools.static: a static method taking the argument first, then {@code tail}. */
    public MethodHandle staticStep(String className, String method, String params, Object[] tail)
            throws Exception {
        return step(className, method, params, tail);
    }

    /** One link of JvmTools.chain: {@code next} applied to {@code handle}'s result (a null
     * {@code handle} starts the chain). */
    public MethodHandle then(MethodHandle handle, MethodHandle next) {
        return handle == null ? next : MethodHandles.filterReturnValue(handle, next);
    }

    public MethodHandle then0(MethodHandle handle, String className, String method) throws Exception {
        return then(handle, step0(className, method));
    }

    public MethodHandle then1(MethodHandle handle, String className, String method, String param,
                              Object value) throws Exception {
        return then(handle, step1(className, method, param, value));
    }

    // -- guards and fallbacks --------------------------------------------------------------

    public MethodHandle safe(MethodHandle handle) {
        return MethodHandles.catchException(handle, Throwable.class, nothing);
    }

    /** One link of JvmTools.first: {@code handle}, or {@code fallback} when it throws. */
    public MethodHandle orElse(MethodHandle handle, MethodHandle fallback) {
        return MethodHandles.catchException(
            handle, Throwable.class, MethodHandles.dropArguments(fallback, 0, new Class[] {Throwable.class}));
    }

    public MethodHandle constant(Object value) {
        return MethodHandles.dropArguments(
            MethodHandles.constant(Object.class, value), 0, new Class[] {Object.class});
    }

    public MethodHandle when(String className, MethodHandle then, MethodHandle otherwise)
            throws ClassNotFoundException {
        MethodHandle test = isInstance.bindTo(cls(className));
        return MethodHandles.guardWithTest(test, then, otherwise == null ? constant(none) : otherwise);
    }

    // -- texts -----------------------------------------------------------------------------

    public MethodHandle text(MethodHandle handle) {
        return safe(MethodHandles.filterReturnValue(handle, toText));
    }

    public MethodHandle optionText(MethodHandle handle) throws Exception {
        return text(then0(handle, "scala.Option", "get"));
    }

    public MethodHandle mkString(MethodHandle handle, String once, String sep) throws Exception {
        return text(then1(handle, once, "mkString", "java.lang.String", sep));
    }

    public MethodHandle opt(MethodHandle handle, String once) throws Exception {
        return text(then1(then0(handle, "scala.Option", "toList"), once, "mkString", "java.lang.String", ""));
    }

    public MethodHandle optionMap(MethodHandle handle, MethodHandle inner, String once) throws Exception {
        MethodHandle mapped = then1(handle, "scala.Option", "map", "scala.Function1", function(inner));
        return text(then1(then0(mapped, "scala.Option", "toList"), once, "mkString", "java.lang.String", ""));
    }

    public MethodHandle arrayJoin(String sep) {
        return MethodHandles.insertArguments(stringJoin, 0, new Object[] {sep}).asType(oo);
    }

    /** JvmTools.record: the texts of {@code fields} (MethodHandles) joined with {@code sep}. */
    public MethodHandle record(String sep, Object[] fields) {
        int count = fields.length;
        MethodHandle join = MethodHandles.insertArguments(stringJoin, 0, new Object[] {sep});
        join = join.asCollector(CharSequence[].class, count);
        Class[] objects = new Class[count];
        MethodHandle[] texts = new MethodHandle[count];
        for (int i = 0; i < count; i++) {
            objects[i] = Object.class;
            texts[i] = text((MethodHandle) fields[i]);
        }
        join = join.asType(MethodType.methodType(Object.class, objects));
        join = MethodHandles.filterArguments(join, 0, texts);
        return MethodHandles.permuteArguments(join, oo, new int[count]);
    }

    public MethodHandle builder(MethodHandle handle) {
        return MethodHandles.filterReturnValue(text(handle), stringBuilder);
    }

    public MethodHandle identity() {
        return MethodHandles.identity(Object.class);
    }

    public Object function(MethodHandle handle) throws ClassNotFoundException {
        return MethodHandleProxies.asInterfaceInstance(cls("scala.Function1"), handle);
    }

    // -- the capture's listeners (lineage_operators.spark.listen.listener, .rdd) -------------------
    //
    // Compiled SparkListeners, added to Spark's executorManagement queue: Spark's listener bus
    // wakes every queue's thread for every event (each task's start and end), so a queue of our
    // own (the RDD-job listener had one) or the shared queue (where Spark puts the query
    // listeners' bus) cost a thread woken thousands of times per task. executorManagement always
    // exists (the HeartbeatReceiver), and its other listeners do little, so ours see job starts
    // promptly.

    /** listener.QueryRegistration: relays this session's ended executions to {@code target}. */
    public Object queryRelay(Object session, org.apache.spark.sql.util.QueryExecutionListener target) {
        return new QueryRelay(session, target);
    }

    /**
     * What Spark's ExecutionListenerBus does for a QueryExecutionListener (same events, same
     * filter: named executions of this session), without the bus's queue: the execution's end
     * event carries its QueryExecution, name, duration and failure. Never throws into the bus.
     */
    public static class QueryRelay extends org.apache.spark.scheduler.SparkListener {
        private final Object session;
        private final org.apache.spark.sql.util.QueryExecutionListener target;

        public QueryRelay(Object session, org.apache.spark.sql.util.QueryExecutionListener target) {
            this.session = session;
            this.target = target;
        }

        public void onOtherEvent(org.apache.spark.scheduler.SparkListenerEvent event) {
            if (!(event instanceof org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd)) {
                return;
            }
            org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd end =
                (org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd) event;
            try {
                org.apache.spark.sql.execution.QueryExecution qe = end.qe();
                if (qe == null || qe.sparkSession() != session || end.executionName().isEmpty()) {
                    return;
                }
                String name = (String) end.executionName().get();
                if (end.executionFailure().isDefined()) {
                    Object failure = end.executionFailure().get();
                    target.onFailure(name, qe, failure instanceof Exception
                        ? (Exception) failure : new RuntimeException(String.valueOf(failure)));
                } else {
                    target.onSuccess(name, qe, end.duration());
                }
            } catch (Throwable ignored) {
                // the Python listener reports its own failures; the bus goes on
            }
        }

        public String toString() {
            return "lineage_operators.QueryRelay";
        }
    }

    // -- waiting for the capture's own queues of the listener bus (listener.drain)

    /**
     * Waits until the bus queues named in {@code names} (SEP-separated) have delivered every event
     * posted so far, by {@code timeoutMillis} from now; false when one is still busy then. Spark's
     * own LiveListenerBus.waitUntilEmpty waits for every queue, so another listener blocked in a
     * data system's retries (openlineage-spark's, on the shared queue, asks S3 whether a path is a
     * file while S3 is down) would hold up a capture that needs none of that queue's events.
     */
    public boolean drainQueues(Object bus, String names, long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        java.lang.reflect.Field field =
            org.apache.spark.scheduler.LiveListenerBus.class.getDeclaredField("queues");
        field.setAccessible(true);
        java.util.List wanted = java.util.Arrays.asList(names.split(SEP));
        Object[] queues = ((java.util.Collection) field.get(bus)).toArray();
        for (int i = 0; i < queues.length; i++) {
            org.apache.spark.scheduler.AsyncEventQueue queue =
                (org.apache.spark.scheduler.AsyncEventQueue) queues[i];
            if (wanted.contains(queue.name()) && !queue.waitUntilEmpty(deadline)) {
                return false;
            }
        }
        return true;
    }

    // -- the RDD-job listener (lineage_operators.spark.rdd.jobs)

    /** RddJobWatcher.start's listener: queues jobs started without a SQL execution id. */
    public Object rddListener(java.util.Collection queue, scala.collection.mutable.HashMap jobs) {
        return new RddJobListener(queue, jobs);
    }

    /**
     * A compiled SparkListener, not a dynamic proxy dispatching on the method's name (~0.025 s of
     * listener-thread CPU per task of the overhead benchmark). Puts [event, Option(ActiveJob)] in
     * the watcher's queue; never throws into the bus.
     */
    public static class RddJobListener extends org.apache.spark.scheduler.SparkListener {
        private final java.util.Collection queue;
        private final scala.collection.mutable.HashMap jobs;

        public RddJobListener(java.util.Collection queue, scala.collection.mutable.HashMap jobs) {
            this.queue = queue;
            this.jobs = jobs;
        }

        public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart event) {
            try {
                java.util.Properties properties = event.properties();
                if (properties == null || properties.getProperty("spark.sql.execution.id") != null) {
                    return;
                }
                queue.add(java.util.Arrays.asList(
                    new Object[] {event, jobs.get(Integer.valueOf(event.jobId()))}));
            } catch (Throwable ignored) {
                // a job the watcher cannot queue is not reported; the bus goes on
            }
        }

        public String toString() {
            return "lineage_operators.RddJobListener";
        }
    }
}
