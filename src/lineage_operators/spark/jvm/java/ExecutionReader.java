// Compiled at run time by Janino, once per JVM, by lineage_operators.spark.plan.batch. Reads what
// the capture needs of one QueryExecution in one py4j call: its ids, the root record, the leaf
// records of the plan, its subqueries and a command's inner query, their distinct schemas, the
// relation statistics, whether a leaf is a LogicalRDD, the written query's facts and the write
// metrics. Each part is one of the capture's JVM-side functions (built in Python from method
// handles, as before), applied here in the order PlanReader.read applied them one call each:
// 33-48 round trips per execution became one. A write's compact plan JSON (column lineage) comes
// in the same reply, and a long reply goes through the capture's file: per write, one round trip
// and a file write and read less. Python's reading stays the fallback. Ended executions reach the
// reader through a queue of its own (Pending, a listener on Spark's bus): no py4j callback, no
// handle per execution; the capture's reader thread takes and reads the next one in one call.
// Janino compiles a subset of Java: no generics, lambdas or enhanced for loops here.
package lineage_operators;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.spark.sql.catalyst.plans.QueryPlan;
import org.apache.spark.sql.catalyst.trees.TreeNode;
import org.apache.spark.sql.execution.QueryExecution;

public class ExecutionReader {
    /** Between the parts of the reply; the fields inside parts use the capture's separators. */
    private static final String PART = "\u0001";
    private static final String RSEP = "\u001d";
    private static final String SEP = "\u001f";
    private static final String NONE = "\u0015";
    /** The reply when it went to the capture's file. */
    private static final String FILE = "@";
    /**
     * A reply whose bytes on py4j's wire (UTF-8, newlines and backslashes escaped) exceed this is
     * returned as a StringBuilder, read in chunks: py4j's 8 KiB buffer sends a longer reply in two
     * TCP segments, and Nagle's algorithm holds the second for the delayed ACK (40 ms).
     */
    private static final int INLINE_BYTES = 8000;
    private static final int MAX_CACHED_SCHEMAS = 256;

    private scala.Function1 root;
    private scala.Function1 leaf;
    private scala.Function1 leafSchema;
    private scala.Function1 schemaRecord;
    private scala.Function1 stats;
    private scala.Function1 isLogicalRdd;
    private scala.Function1 queryFacts;
    private scala.Function1 findWrite;
    private scala.Function1 openWrite;
    private HashSet innerQuery = new HashSet();
    private HashSet withMetrics = new HashSet();
    /** The observation walk's rules (plan.execution's KEEPS_ROWS, OVER_READ, MAX_DEPTH). */
    private HashSet keepsRows = new HashSet();
    private HashSet overRead = new HashSet();
    private int maxDepth;
    /** AQE wrappers opened at most to find the write (statistics.MAX_WRAPPERS). */
    private int maxWrappers;
    private Method queryId;
    /** The compact plan writer (PlanWriter, compiled apart: called by reflection) and its query. */
    private Object planWriter;
    private Method render;
    private scala.Function1 queryOf;
    /** The Iceberg scan reader (IcebergScans, compiled apart: called by reflection), or null. */
    private Object icebergScans;
    private Method readScans;
    /** Schema record text by StructType: a table read again serializes its schema once. */
    private final HashMap schemas = new HashMap();

    /**
     * Class names are SEP-joined (plan nodes': simple names); every rule comes from Python, which
     * applies the same ones where this class is missing. {@code useQueryId}: Spark 4.2+'s queryId.
     */
    public void configure(scala.Function1[] functions, String innerQueryClasses, String metricsClasses,
            String keepsRowsNodes, String overReadNodes, int maxDepth, int maxWrappers, boolean useQueryId)
            throws Exception {
        root = functions[0];
        leaf = functions[1];
        leafSchema = functions[2];
        schemaRecord = functions[3];
        stats = functions[4];
        isLogicalRdd = functions[5];
        queryFacts = functions[6];
        findWrite = functions[7];
        openWrite = functions[8];
        addAll(innerQuery, innerQueryClasses);
        addAll(withMetrics, metricsClasses);
        addAll(keepsRows, keepsRowsNodes);
        addAll(overRead, overReadNodes);
        this.maxDepth = maxDepth;
        this.maxWrappers = maxWrappers;
        queryId = useQueryId ? QueryExecution.class.getMethod("queryId", new Class[0]) : null;
    }

    /** The compact plan writer ({@code PlanWriter}) and the function from a command to its query. */
    public void configurePlans(Object writer, scala.Function1 query) throws Exception {
        render = writer.getClass().getMethod("render", new Class[] {scala.Function1.class, Object.class});
        queryOf = query;
        planWriter = writer;
    }

    /** The Iceberg scan reader ({@code IcebergScans}), where Iceberg is on the classpath. */
    public void configureScans(Object scans) throws Exception {
        readScans = scans.getClass().getMethod("read", new Class[] {Object.class});
        icebergScans = scans;
    }

    private static void addAll(HashSet set, String joined) {
        String[] names = joined.split(SEP);
        for (int i = 0; i < names.length; i++) {
            if (names[i].length() > 0) {
                set.add(names[i]);
            }
        }
    }

    /**
     * Parts: qe id, queryId (NONE before Spark 4.2: Python makes the key), then "!" when the plan has no analyzed plan (and nothing else), else
     * the root record, the distinct leaf records (RSEP), the distinct schema records (RSEP; empty
     * when no leaf has a schema), the distinct statistics records (RSEP), "1" when a leaf is a
     * LogicalRDD, the written query's facts (NONE without column lineage), the write metrics text
     * (NONE when not read), the observations' values (NONE without any), the Iceberg scans' records
     * (IcebergScans.read; NONE without any or without the reader). A String when short, else a
     * StringBuilder.
     */
    public Object read(QueryExecution qe, boolean succeeded) {
        return read(qe, succeeded, 0, null);
    }

    /**
     * As above, plus a twelfth part when the written query's compact plan JSON was asked for
     * ({@code maxLeafColumns} > 0): "=" and the JSON when its leaves have at most that many
     * columns, else NONE. A reply too long for one py4j segment is written to {@code path} (when
     * given and writable) and "@" returned.
     */
    public Object read(QueryExecution qe, boolean succeeded, int maxLeafColumns, String path) {
        StringBuilder out = new StringBuilder(512);
        String id = NONE;
        String key = NONE;
        try {
            id = String.valueOf(qe.id());
            key = queryId != null ? String.valueOf(queryId.invoke(qe, new Object[0])) : NONE;
        } catch (Throwable e) {
            // no query id: attribution uses the time window, as in the Python reading
        }
        out.append(id).append(PART).append(key).append(PART);
        Object plan;
        try {
            plan = qe.analyzed();
        } catch (Throwable e) {
            return out.append("!").toString();
        }
        String rootText = root.apply(plan).toString();
        out.append(rootText).append(PART);
        String cls = plan.getClass().getName();
        ArrayList leaves = leaves(plan, innerQuery.contains(cls));
        LinkedHashSet records = new LinkedHashSet();
        LinkedHashSet distinct = new LinkedHashSet();
        boolean anyRdd = false;
        for (int i = 0; i < leaves.size(); i++) {
            Object node = leaves.get(i);
            records.add(String.valueOf(leaf.apply(node)));
            Object schema = leafSchema.apply(node);  // a StructType, or NONE (a String): no schema
            if (!(schema instanceof String)) {
                distinct.add(schema);
            }
            if (Boolean.TRUE.equals(isLogicalRdd.apply(node))) {
                anyRdd = true;
            }
        }
        join(out, records);
        out.append(PART);
        ArrayList schemaRecords = new ArrayList();
        for (Iterator it = distinct.iterator(); it.hasNext();) {
            schemaRecords.add(schemaRecord(it.next()));
        }
        join(out, schemaRecords);
        out.append(PART);
        LinkedHashSet statRecords = new LinkedHashSet();
        for (int i = 0; i < leaves.size(); i++) {
            statRecords.add(String.valueOf(stats.apply(leaves.get(i))));
        }
        join(out, statRecords);
        out.append(PART).append(anyRdd ? "1" : "0").append(PART);
        String facts = queryFacts == null ? NONE : String.valueOf(queryFacts.apply(plan));
        out.append(facts).append(PART);
        out.append(succeeded && withMetrics.contains(cls) ? metrics(qe) : NONE).append(PART);
        out.append(succeeded ? observed(qe) : NONE).append(PART);
        out.append(succeeded ? scans(qe) : NONE);
        if (maxLeafColumns > 0) {
            StringBuilder json = planJson(plan, leaves, maxLeafColumns);
            out.append(PART);
            if (json == null) {
                out.append(NONE);
            } else {
                out.append('=').append(json);
            }
        }
        if (wireBytes(out, INLINE_BYTES) <= INLINE_BYTES) {
            return out.toString();
        }
        return path != null && written(out, path) ? (Object) FILE : (Object) out;
    }

    /** A queue of this session's ended executions, to add to Spark's listener bus. */
    public Pending pending(Object session, long settleMs) {
        return new Pending(session, settleMs);
    }

    /**
     * The next execution of {@code pending}, read: "" when none ended within {@code waitMs}, "."
     * once the queue is closed, else its number, name, "1" or "0" (succeeded), the microseconds
     * the read took, each followed by PART, then the reply of {@link #read}. While Python handles
     * the reply, {@code pending.current()} is the execution (a read that needs the object itself).
     */
    public Object next(Pending pending, long waitMs, int maxLeafColumns, String path)
            throws InterruptedException {
        pending.current = null;
        Object[] item = (Object[]) pending.queue.poll(waitMs, TimeUnit.MILLISECONDS);
        if (item == null) {
            return "";
        }
        if (item.length == 0) {
            pending.queue.add(item);  // closed: every later call ends too
            return ".";
        }
        pending.settle(item);
        QueryExecution qe = (QueryExecution) item[2];
        boolean succeeded = ((Boolean) item[3]).booleanValue();
        pending.current = qe;
        long started = System.nanoTime();
        Object reply;
        try {
            reply = read(qe, succeeded, maxLeafColumns, path);
        } catch (Throwable e) {
            reply = "";  // Python reads this one step by step
        }
        String head = item[0] + PART + item[1] + PART + (succeeded ? "1" : "0") + PART
            + (System.nanoTime() - started) / 1000 + PART;
        if (reply instanceof StringBuilder) {
            return ((StringBuilder) reply).insert(0, head);
        }
        return head + reply;
    }

    /**
     * What Spark's ExecutionListenerBus does for a QueryExecutionListener (same events; named
     * executions of this session and of its clones, where Spark copies the listener), without its
     * thread, plus a stream's unnamed micro-batches: each end event's execution is queued for the
     * capture's reader. Never throws into the bus.
     */
    public static class Pending extends org.apache.spark.scheduler.SparkListener {
        private static final Object[] END = new Object[0];
        /**
         * How long an ended execution waits before it is read. The task's thread gets the reply of
         * its action the moment the execution ends: read then, the reader's reply would reach
         * Python at the same moment and the two threads would queue for the GIL (up to its 5 ms
         * switch interval per action). A little later the task's thread is inside its next Spark
         * call, with the GIL free. A drain ({@link #hurry}) and {@link #close} end the wait.
         * Zero where reading at once costs less (the per-line choice is in spark_line.py).
         */
        private final long settleNanos;
        final LinkedBlockingQueue queue = new LinkedBlockingQueue();
        volatile QueryExecution current;
        private final Object session;
        /** The session's clones seen so far (streams' sessions), newest last. */
        private final java.util.concurrent.CopyOnWriteArrayList clones = new java.util.concurrent.CopyOnWriteArrayList();
        private static final int MAX_CLONES = 64;
        private volatile Method parentState;
        private volatile Object sessionState;
        private final AtomicLong added = new AtomicLong();
        private volatile boolean closed;
        /** Executions numbered up to this one are read without settling (a drain asked for them). */
        private volatile long hurried;

        public Pending(Object session, long settleMs) {
            this.session = session;
            this.settleNanos = settleMs * 1000000L;
        }

        public void onOtherEvent(org.apache.spark.scheduler.SparkListenerEvent event) {
            if (closed || !(event instanceof org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd)) {
                return;
            }
            org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd end =
                (org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd) event;
            try {
                QueryExecution qe = end.qe();
                if (qe == null || !ours(qe.sparkSession())) {
                    return;
                }
                String name = end.executionName().isEmpty() ? microBatch(qe) : (String) end.executionName().get();
                if (name == null) {
                    return;
                }
                Boolean succeeded = Boolean.valueOf(!end.executionFailure().isDefined());
                queue.add(new Object[] {Long.valueOf(added.incrementAndGet()), name, qe,
                    succeeded, Long.valueOf(System.nanoTime())});
            } catch (Throwable ignored) {
                // an execution that cannot be queued is not reported; the bus goes on
            }
        }

        /**
         * This session, or one cloned from it: a stream runs its micro-batches, and hands
         * foreachBatch its DataFrames, on a clone of the session that started it (Spark copies a
         * session's QueryExecutionListeners into its clones, so such a listener gets them too).
         * A clone is known by the parent SessionState it was made from; found clones are kept.
         */
        private boolean ours(Object other) {
            if (other == session) {
                return true;
            }
            for (int i = 0; i < clones.size(); i++) {
                if (clones.get(i) == other) {
                    return true;
                }
            }
            try {
                if (parentState == null) {
                    Method parent = other.getClass().getDeclaredMethod("parentSessionState", new Class[0]);
                    parent.setAccessible(true);
                    parentState = parent;
                }
                scala.Option parent = (scala.Option) parentState.invoke(other, new Object[0]);
                if (parent == null || parent.isEmpty() || parent.get() != ownState()) {
                    return false;
                }
            } catch (Throwable e) {
                return false;  // another Spark: executions of other sessions stay unreported
            }
            synchronized (clones) {
                if (clones.size() >= MAX_CLONES) {
                    clones.remove(0);
                }
                clones.add(other);
            }
            return true;
        }

        /**
         * The name an unnamed execution is read under, or null (not read, as Spark's listener
         * bus does): a stream's micro-batch runs unnamed, and with a V1 sink (files) nothing
         * inside it is named either, so its reads would go unreported.
         */
        private static String microBatch(QueryExecution qe) {
            return qe.getClass().getName().endsWith(".IncrementalExecution") ? "microBatch" : null;
        }

        private Object ownState() throws Exception {
            if (sessionState == null) {
                sessionState = session.getClass().getMethod("sessionState", new Class[0]).invoke(session, new Object[0]);
            }
            return sessionState;
        }

        /** A drain: the executions queued so far are read without settling; returns their count. */
        public long hurry() {
            synchronized (this) {
                hurried = added.get();
                notifyAll();
                return hurried;
            }
        }

        /** Waits until {@code item} ended {@link #settleNanos} ago, unless hurried or closed. */
        void settle(Object[] item) throws InterruptedException {
            if (settleNanos == 0L) {
                return;
            }
            long number = ((Long) item[0]).longValue();
            long due = ((Long) item[4]).longValue() + settleNanos;
            synchronized (this) {
                while (!closed && number > hurried) {
                    long left = due - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    wait(left / 1000000L + 1);
                }
            }
        }

        /** The execution being read, or null. */
        public QueryExecution current() {
            return current;
        }

        /** No more executions; {@code drop}: forget the queued ones too. The reader then ends. */
        public void close(boolean drop) {
            closed = true;
            if (drop) {
                queue.clear();
            }
            queue.add(END);
            synchronized (this) {
                notifyAll();  // a read settling goes on at once
            }
        }

        public String toString() {
            return "lineage_operators.PendingExecutions";
        }
    }

    /** The written query's compact JSON, or null (no writer, no query, too many leaf columns). */
    private StringBuilder planJson(Object plan, ArrayList leaves, int maxLeafColumns) {
        if (planWriter == null) {
            return null;
        }
        try {
            if (queryOf.apply(plan) instanceof String) {
                return null;  // NONE: not a write of a query
            }
            int columns = 0;
            for (int i = 0; i < leaves.size(); i++) {
                columns += ((QueryPlan) leaves.get(i)).output().size();
            }
            if (columns > maxLeafColumns) {
                return null;  // Python counts distinct columns and decides
            }
            return (StringBuilder) render.invoke(planWriter, new Object[] {queryOf, plan});
        } catch (Throwable e) {
            return null;  // Python renders it again and reports why
        }
    }

    /** Writes a long reply to the capture's file: one round trip and a file read, not a chunked read. */
    private static boolean written(StringBuilder reply, String path) {
        try {
            java.nio.file.Files.write(java.nio.file.Paths.get(path, new String[0]),
                reply.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                new java.nio.file.OpenOption[0]);
            return true;
        } catch (Throwable e) {
            return false;  // read in chunks
        }
    }

    /**
     * Bytes of {@code text} in py4j's reply (UTF-8, newline, return and backslash escaped), counted
     * until they pass {@code limit}.
     */
    private static int wireBytes(CharSequence text, int limit) {
        int bytes = 0;
        for (int i = 0; i < text.length() && bytes <= limit; i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r' || c == '\\') {
                bytes += 2;
            } else if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private String schemaRecord(Object schema) {
        String found;
        synchronized (schemas) {
            found = (String) schemas.get(schema);
        }
        if (found == null) {
            found = String.valueOf(schemaRecord.apply(schema));
            synchronized (schemas) {
                if (schemas.size() >= MAX_CACHED_SCHEMAS) {
                    schemas.clear();
                }
                schemas.put(schema, found);
            }
        }
        return found;
    }

    private static ArrayList leaves(Object plan, boolean withInner) {
        ArrayList plans = new ArrayList();
        plans.add(plan);
        addAll(plans, ((QueryPlan) plan).subqueriesAll());
        if (withInner) {
            addAll(plans, ((QueryPlan) plan).innerChildren());
        }
        ArrayList leaves = new ArrayList();
        for (int i = 0; i < plans.size(); i++) {
            addAll(leaves, ((TreeNode) plans.get(i)).collectLeaves());
        }
        return leaves;
    }

    private static void addAll(ArrayList list, Object seq) {
        scala.collection.Iterator it = ((scala.collection.Iterable) seq).iterator();
        while (it.hasNext()) {
            list.add(it.next());
        }
    }

    private static void join(StringBuilder out, java.util.Collection items) {
        boolean first = true;
        for (Iterator it = items.iterator(); it.hasNext();) {
            if (!first) {
                out.append(RSEP);
            }
            first = false;
            out.append(String.valueOf(it.next()));
        }
    }

    /** The metrics text of the write node of the executed plan (statistics.write_metrics_text). */
    /**
     * The values of the execution's observations (Dataset.observe): per observation its name, the
     * row as JSON and, when it sits on a read below a filter, join or aggregate (observedReads), the
     * id of the read's first output attribute (else empty);
     * SEP between fields, RSEP between observations; NONE without any. Spark collected the values
     * while the job ran: reading them walks the executed plan (and, when there are some, the
     * analyzed one), no job.
     */
    private String observed(QueryExecution qe) {
        try {
            scala.collection.Map values = qe.observedMetrics();
            if (values.isEmpty()) {
                return NONE;
            }
            HashMap onReads = new HashMap();
            observedReads(qe.analyzed(), onReads, 0, false);
            ArrayList records = new ArrayList();
            scala.collection.Iterator it = values.iterator();
            while (it.hasNext()) {
                scala.Tuple2 entry = (scala.Tuple2) it.next();
                Object read = onReads.get(entry._1());
                records.add(entry._1() + SEP + ((org.apache.spark.sql.Row) entry._2()).json() + SEP
                    + (read == null ? "" : read));
            }
            StringBuilder out = new StringBuilder();
            join(out, records);
            return out.toString();
        } catch (Throwable e) {
            return NONE;  // no observations read: the datasets get no observed metrics
        }
    }

    /**
     * Observation name -> the first output attribute id of the read it sits on (projections between
     * them only), when a node above it changes the rows (a filter, a join, an aggregate, a count;
     * not the write command): the values then describe the rows read, not the rows written.
     */
    private void observedReads(Object node, HashMap found, int depth, boolean changed) {
        if (depth > maxDepth) {
            return;
        }
        if (changed && node instanceof org.apache.spark.sql.catalyst.plans.logical.CollectMetrics) {
            org.apache.spark.sql.catalyst.plans.logical.CollectMetrics collect =
                (org.apache.spark.sql.catalyst.plans.logical.CollectMetrics) node;
            Object below = collect.child();
            while (overRead.contains(below.getClass().getSimpleName())) {
                below = ((TreeNode) below).children().head();
            }
            scala.collection.Seq output = ((QueryPlan) below).output();
            if (((TreeNode) below).children().isEmpty() && !output.isEmpty()) {
                org.apache.spark.sql.catalyst.expressions.Attribute first =
                    (org.apache.spark.sql.catalyst.expressions.Attribute) output.head();
                found.put(collect.name(), String.valueOf(first.exprId().id()));
            }
        }
        boolean below = changed || !(keepsRows.contains(node.getClass().getSimpleName())
            || node instanceof org.apache.spark.sql.catalyst.plans.logical.Command);
        scala.collection.Iterator children = ((TreeNode) node).children().iterator();
        while (children.hasNext()) {
            observedReads(children.next(), found, depth + 1, below);
        }
    }

    private String scans(QueryExecution qe) {
        if (icebergScans == null) {
            return NONE;
        }
        try {
            return String.valueOf(readScans.invoke(icebergScans, new Object[] {qe.executedPlan()}));
        } catch (Throwable e) {
            return NONE;  // Iceberg inputs keep no scan figures
        }
    }

    private String metrics(QueryExecution qe) {
        try {
            Object node = qe.executedPlan();
            for (int i = 0; i < maxWrappers; i++) {
                scala.Option found = (scala.Option) findWrite.apply(node);
                if (found.isEmpty()) {
                    return NONE;
                }
                Object opened = openWrite.apply(found.get());
                if (opened instanceof String) {
                    return (String) opened;
                }
                node = opened;
            }
        } catch (Throwable e) {
            // no write metrics: the output gets no statistics, as in the Python reading
        }
        return NONE;
    }
}
