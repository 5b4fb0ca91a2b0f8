// Compiled at run time by Janino, once per JVM where Apache Iceberg's Spark runtime is on the
// classpath, by lineage_operators.spark.tables.iceberg_scans. Reads what the Iceberg scans of an
// executed plan read, after the execution, from what the scans already hold: the data files of the
// planned tasks (inputStatistics: files, bytes, rows) and Iceberg's own ScanReport (the
// icebergScanReport facet), which Iceberg 1.10+ keeps in each scan (scanReportSupplier) for Spark's
// driver metrics. Nothing is planned or listed here: a scan whose tasks were never planned reports
// no statistics, and no catalog's metrics reporter is touched. Iceberg's classes are reached by
// reflection only (this compiles without them). Janino compiles a subset of Java: no generics,
// lambdas or enhanced for loops here.
package lineage_operators;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.catalyst.plans.QueryPlan;
import org.apache.spark.sql.catalyst.trees.TreeNode;

public class IcebergScans {
    private static final String RSEP = "\u001d";
    private static final String SEP = "\u001f";
    private static final String SEP2 = "\u001e";
    private static final String SEP3 = "\u001c";
    private static final String NONE = "\u0015";
    private static final String SCANS = "org.apache.iceberg.spark.";
    private static final int MAX_DEPTH = 400;
    private static final int MAX_METHODS = 4096;
    /** Looked-up methods by "class#name" (null: none), for {@link #call}. */
    private static final HashMap METHODS = new HashMap();
    /** ScanMetricsResult's results, in openlineage-spark's order (IcebergScanMetrics). */
    private static final String[] METRICS = {"totalPlanningDuration", "resultDataFiles",
        "resultDeleteFiles", "totalDataManifests", "totalDeleteManifests", "scannedDataManifests",
        "skippedDataManifests", "totalFileSizeInBytes", "totalDeleteFileSizeInBytes", "skippedDataFiles",
        "skippedDeleteFiles", "scannedDeleteManifests", "skippedDeleteManifests", "indexedDeleteFiles",
        "equalityDeleteFiles", "positionalDeleteFiles"};

    /**
     * One record per Iceberg scan of {@code executedPlan} (RSEP between them; NONE without any):
     * table location, data files, bytes, rows (NONE each when the scan planned no tasks), then the
     * scan report's snapshot id, filter, projected field names (SEP2), metrics (SEP2, in METRICS'
     * order, NONE for an absent one) and metadata (key SEP3 value, SEP2 between), NONE each when
     * the scan keeps no report.
     */
    public String read(Object executedPlan) {
        ArrayList scans = new ArrayList();
        try {
            collect(executedPlan, scans, new IdentityHashMap(), 0);
        } catch (Throwable e) {
            // a plan that cannot be walked: what was found so far
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < scans.size(); i++) {
            String record = record(scans.get(i));
            if (record != null) {
                if (out.length() > 0) {
                    out.append(RSEP);
                }
                out.append(record);
            }
        }
        return out.length() == 0 ? NONE : out.toString();
    }

    private static void collect(Object node, List found, IdentityHashMap seen, int depth) {
        if (node == null || depth > MAX_DEPTH || seen.containsKey(node)) {
            return;
        }
        seen.put(node, node);
        String name = node.getClass().getName();
        if (name.endsWith("BatchScanExec")) {
            Object scan = call(node, "scan");
            if (scan != null && scan.getClass().getName().startsWith(SCANS)) {
                found.add(scan);
            }
        } else if (name.endsWith("AdaptiveSparkPlanExec")) {
            collect(call(node, "executedPlan"), found, seen, depth + 1);
        } else if (name.endsWith("QueryStageExec")) {
            collect(call(node, "plan"), found, seen, depth + 1);
        }
        if (!(node instanceof TreeNode)) {
            return;
        }
        scala.collection.Iterator children = ((TreeNode) node).children().iterator();
        while (children.hasNext()) {
            collect(children.next(), found, seen, depth + 1);
        }
        if (node instanceof QueryPlan) {
            scala.collection.Iterator subqueries = ((QueryPlan) node).subqueries().iterator();
            while (subqueries.hasNext()) {
                collect(subqueries.next(), found, seen, depth + 1);
            }
        }
    }

    private static String record(Object scan) {
        Object table = call(scan, "table");
        Object location = table == null ? null : call(table, "location");
        if (location == null) {
            return null;
        }
        StringBuilder out = new StringBuilder(256);
        out.append(location).append(SEP);
        files(scan, out);
        report(scan, out);
        return out.toString();
    }

    /** Distinct data files of the planned tasks: count SEP bytes SEP rows (the jar's figures). */
    private static void files(Object scan, StringBuilder out) {
        Object tasks = field(scan, "tasks");
        if (!(tasks instanceof List)) {
            out.append(NONE).append(SEP).append(NONE).append(SEP).append(NONE).append(SEP);
            return;
        }
        HashSet paths = new HashSet();
        long bytes = 0;
        long rows = 0;
        List list = (List) tasks;
        ArrayList files = new ArrayList();
        for (int i = 0; i < list.size(); i++) {
            dataFiles(list.get(i), files);
        }
        for (int i = 0; i < files.size(); i++) {
            Object file = files.get(i);
            Object path = call(file, "location");
            if (path == null) {
                path = call(file, "path");
            }
            if (path == null || !paths.add(path.toString())) {
                continue;
            }
            bytes += number(call(file, "fileSizeInBytes"));
            rows += number(call(file, "recordCount"));
        }
        out.append(paths.size()).append(SEP).append(bytes).append(SEP).append(rows).append(SEP);
    }

    private static void dataFiles(Object task, List files) {
        if (task == null) {
            return;
        }
        if (Boolean.TRUE.equals(call(task, "isFileScanTask"))) {
            Object file = call(call(task, "asFileScanTask"), "file");
            if (file != null) {
                files.add(file);
            }
            return;
        }
        Object inner = call(task, "files");  // a combined task
        if (inner instanceof java.util.Collection) {
            Iterator it = ((java.util.Collection) inner).iterator();
            while (it.hasNext()) {
                dataFiles(it.next(), files);
            }
        }
    }

    private static void report(Object scan, StringBuilder out) {
        Object supplier = field(scan, "scanReportSupplier");
        Object report = supplier == null ? null : call(supplier, "get");
        if (report == null) {
            out.append(NONE).append(SEP).append(NONE).append(SEP).append(NONE).append(SEP).append(NONE)
                .append(SEP).append(NONE);
            return;
        }
        out.append(text(call(report, "snapshotId"))).append(SEP);
        Object filter = call(report, "filter");
        String described = filter == null ? "" : String.valueOf(filter);
        out.append("true".equalsIgnoreCase(described) ? "" : described).append(SEP);
        Object names = call(report, "projectedFieldNames");
        if (names instanceof List) {
            List list = (List) names;
            for (int i = 0; i < list.size(); i++) {
                out.append(i > 0 ? SEP2 : "").append(list.get(i));
            }
        } else {
            out.append(NONE);
        }
        out.append(SEP);
        Object metrics = call(report, "scanMetrics");
        for (int i = 0; i < METRICS.length; i++) {
            Object result = metrics == null ? null : call(metrics, METRICS[i]);
            Object value = null;
            if (result != null && i == 0) {  // a TimerResult: its total duration, in milliseconds
                Object duration = call(result, "totalDuration");
                value = duration == null ? null : call(duration, "toMillis");
            } else if (result != null) {
                value = call(result, "value");  // a CounterResult
            }
            out.append(i > 0 ? SEP2 : "").append(text(value));
        }
        out.append(SEP);
        Object metadata = call(report, "metadata");
        if (metadata instanceof Map && !((Map) metadata).isEmpty()) {
            Iterator entries = ((Map) metadata).entrySet().iterator();
            boolean first = true;
            while (entries.hasNext()) {
                Map.Entry entry = (Map.Entry) entries.next();
                out.append(first ? "" : SEP2).append(entry.getKey()).append(SEP3).append(entry.getValue());
                first = false;
            }
        } else {
            out.append(NONE);
        }
    }

    private static String text(Object value) {
        return value == null ? NONE : String.valueOf(value);
    }

    private static long number(Object value) {
        return value instanceof Number ? ((Number) value).longValue() : 0L;
    }

    /** A no-argument method of {@code target}'s class, a superclass or an interface, any access,
     * called; null on any failure. Methods are looked up once per class (a table's files share one). */
    private static Object call(Object target, String name) {
        if (target == null) {
            return null;
        }
        Method method = method(target.getClass(), name);
        try {
            return method == null ? null : method.invoke(target, new Object[0]);
        } catch (Throwable e) {
            return null;
        }
    }

    private static synchronized Method method(Class cls, String name) {
        String key = cls.getName() + "#" + name;
        if (METHODS.containsKey(key)) {
            return (Method) METHODS.get(key);
        }
        Method found = null;
        for (Class c = cls; c != null && found == null; c = c.getSuperclass()) {
            try {
                found = c.getDeclaredMethod(name, new Class[0]);
                found.setAccessible(true);
            } catch (Throwable e) {
                found = null;  // absent here, or not accessible: look further
            }
        }
        if (found == null) {
            try {
                found = cls.getMethod(name, new Class[0]);  // an interface's default method
                found.setAccessible(true);
            } catch (Throwable e) {
                found = null;
            }
        }
        if (METHODS.size() < MAX_METHODS) {
            METHODS.put(key, found);
        }
        return found;
    }

    private static Object field(Object target, String name) {
        for (Class c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field found = c.getDeclaredField(name);
                found.setAccessible(true);
                return found.get(target);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            } catch (Throwable e) {
                return null;
            }
        }
        return null;
    }
}
