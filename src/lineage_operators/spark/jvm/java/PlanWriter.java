// Compiled at run time by Janino (the compiler Spark's code generation uses), once per JVM, by
// lineage_operators.spark.plan.columns.writer. Writes a plan in the shape of Spark's TreeNode.toJSON() (a
// pre-order array of nodes with "class" and "num-children", expressions held by a field as nested
// arrays, a child held by a field as its index) but only with the fields the column-lineage engine
// reads, and class names without their package: no data types (bar casts), metadata, qualifiers,
// statistics or relation objects, which are most of toJSON's bytes and time on a wide plan.
// Janino compiles a subset of Java: no generics, lambdas or enhanced for loops here.
package lineage_operators;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.trees.TreeNode;
import org.apache.spark.sql.types.DataType;

public class PlanWriter {
    /** {@code Product.productElementNames} (Scala 2.13), or null (2.12). */
    private static final java.lang.reflect.Method ELEMENT_NAMES = elementNamesMethod();

    /** Scala 2.12: a case class's constructor parameter names (a Scala Seq), by class. */
    private final java.util.concurrent.ConcurrentHashMap constructorNames =
        new java.util.concurrent.ConcurrentHashMap();

    private static java.lang.reflect.Method elementNamesMethod() {
        try {
            return scala.Product.class.getMethod("productElementNames", new Class[0]);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /**
     * Descriptions (column_lineage_descriptions): 0 = off, else the most characters of an
     * expression's text written ({@code "sql"} on the top expression of a DESCRIBED field).
     */
    private volatile int describeCap = 0;

    /** Spark's {@code spark.sql.redaction.string.regex} of the plan being written, or null. */
    private java.util.regex.Pattern redaction;

    /** Plan fields whose top expressions make column-lineage entries (what descriptions describe). */
    private static final Set DESCRIBED = new HashSet(Arrays.asList(new String[] {
        "condition", "projectList", "aggregateExpressions", "windowExpressions",
        "groupingExpressions", "order"
    }));

    /** Whether a field's top expressions get their text. */
    private static final int NO_TEXT = 0, TEXT = 1;

    /** Replaces what Spark's redaction regex matches, as Spark's own redaction does. */
    private static final String REDACTED = "*********(redacted)";

    /** Turns descriptions on (at most {@code cap} characters of each text) or off (0). */
    public void describe(int cap) {
        describeCap = cap;
    }

    /** Constructor fields the engine reads (lineage_operators.column_lineage: plan_walk, expressions). */
    private static final Set FIELDS = new HashSet(Arrays.asList(new String[] {
        "name", "exprId", "condition", "projectList", "output", "aggregateExpressions",
        "groupingExpressions", "windowExpressions", "order", "joinType", "exists", "generator",
        "generatorOutput", "unrequiredChildIndex", "outer", "projections", "plan", "id", "cteId",
        "outputAttrIds", "loopId", "isAll", "keys", "dataCols", "partitionCols", "e", "right",
        "replacement", "query",
        // MERGE INTO's MergeRows instructions (row-level writes, Spark 3.4+)
        "matchedInstructions", "notMatchedInstructions", "notMatchedBySourceInstructions"
    }));

    /**
     * Writes the compact JSON of {@code queryOf.apply(root)} to {@code path}: returns the path, null
     * if that is not a plan, or "!" and the message if the file cannot be written.
     */
    public String write(scala.Function1 queryOf, Object root, String path) {
        StringBuilder text = render(queryOf, root);
        if (text == null) {
            return null;
        }
        try {
            Files.write(Paths.get(path, new String[0]), text.toString().getBytes(StandardCharsets.UTF_8),
                new java.nio.file.OpenOption[0]);
        } catch (java.io.IOException e) {
            return "!" + e;
        }
        return path;
    }

    /** The compact JSON of {@code queryOf.apply(root)}; null if that is not a plan. */
    public StringBuilder render(scala.Function1 queryOf, Object root) {
        Object query = queryOf.apply(root);
        if (!(query instanceof TreeNode)) {
            return null;
        }
        StringBuilder out = new StringBuilder(1 << 16);
        redaction = describeCap > 0 ? redactionPattern() : null;
        tree((TreeNode) query, out, NO_TEXT);
        return out;
    }

    /**
     * A node and its descendants, pre-order, as one JSON array (iterative: plans can be deep);
     * {@code described}: TEXT when the root is a top expression whose text is wanted.
     */
    private void tree(TreeNode root, StringBuilder out, int described) {
        String sql = described != NO_TEXT ? text(root) : null;
        ArrayDeque stack = new ArrayDeque();
        stack.push(new Object[] {root, Boolean.FALSE});
        out.append('[');
        boolean first = true;
        ArrayList children = new ArrayList();
        while (!stack.isEmpty()) {
            Object[] item = (Object[]) stack.pop();
            TreeNode node = (TreeNode) item[0];
            if (!first) {
                out.append(',');
            }
            first = false;
            node(node, ((Boolean) item[1]).booleanValue(), out, node == root ? sql : null);
            children.clear();
            scala.collection.Iterator it = node.children().iterator();
            while (it.hasNext()) {
                children.add(it.next());
            }
            Boolean isCast = node instanceof Cast ? Boolean.TRUE : Boolean.FALSE;
            for (int i = children.size() - 1; i >= 0; i--) {
                stack.push(new Object[] {children.get(i), isCast});
            }
        }
        out.append(']');
    }

    /** One node's object; {@code underCast}: its data type matters (a cast's child). */
    private void node(TreeNode node, boolean underCast, StringBuilder out, String sql) {
        out.append("{\"class\":");
        string(shortName(node.getClass()), out);
        out.append(",\"num-children\":").append(node.children().size());
        boolean wroteId = false;
        scala.collection.Iterator names = elementNames(node);
        scala.collection.Iterator values = node.productIterator();
        while (names.hasNext() && values.hasNext()) {
            String name = (String) names.next();
            Object value = values.next();
            boolean typed = "dataType".equals(name) && (underCast || node instanceof Cast);
            if (!typed && !FIELDS.contains(name)) {
                continue;
            }
            out.append(",\"").append(name).append("\":");
            value(node, value, out,
                describeCap > 0 && node instanceof LogicalPlan && DESCRIBED.contains(name) ? TEXT : NO_TEXT);
            wroteId = wroteId || "exprId".equals(name);
        }
        if (!wroteId && (node instanceof Attribute || node instanceof Alias)) {
            // their exprId is in the second parameter list, outside productElementNames
            ExprId id = node instanceof Alias ? ((Alias) node).exprId() : ((Attribute) node).exprId();
            out.append(",\"exprId\":");
            exprId(id, out);
        }
        if (sql != null) {
            out.append(",\"sql\":");
            string(sql, out);
        }
        out.append('}');
    }

    /**
     * Spark's text of a top expression ({@code sum(amount) AS total}, {@code order_id}),
     * redacted by Spark's string redaction regex and cut at the cap; null when there is none.
     */
    private String text(TreeNode node) {
        if (!(node instanceof Expression)) {
            return null;
        }
        try {
            String sql = ((Expression) node).sql();
            if (redaction != null) {
                sql = redaction.matcher(sql).replaceAll(REDACTED);
            }
            int cap = describeCap;
            return sql.length() > cap ? sql.substring(0, cap) : sql;
        } catch (Throwable e) {
            return null;  // an expression that cannot print itself: no description
        }
    }

    private static java.util.regex.Pattern redactionPattern() {
        try {
            scala.Option regex = org.apache.spark.sql.internal.SQLConf.get().stringRedactionPattern();
            return regex.isEmpty() ? null : ((scala.util.matching.Regex) regex.get()).pattern();
        } catch (Throwable e) {
            return null;
        }
    }

    private void value(TreeNode owner, Object value, StringBuilder out, int described) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof TreeNode) {
            int index = childIndex(owner, value);
            if (index >= 0) {
                out.append(index);
            } else {
                tree((TreeNode) value, out, described);
            }
        } else if (value instanceof String) {
            string((String) value, out);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte || value instanceof Boolean) {
            out.append(value.toString());
        } else if (value instanceof ExprId) {
            exprId((ExprId) value, out);
        } else if (value instanceof DataType) {
            out.append(((DataType) value).json());
        } else if (value instanceof scala.Option) {
            scala.Option option = (scala.Option) value;
            if (option.isEmpty()) {
                out.append("null");
            } else {
                value(owner, option.get(), out, described);
            }
        } else if (value instanceof scala.collection.Iterable) {
            out.append('[');
            scala.collection.Iterator it = ((scala.collection.Iterable) value).iterator();
            boolean first = true;
            while (it.hasNext()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                value(owner, it.next(), out, described);
            }
            out.append(']');
        } else if (value instanceof scala.Product) {
            product((scala.Product) value, owner, out);
        } else {
            out.append("null");
        }
    }

    /** A case object as {"object": class}, a case class (ExistenceJoin) with its read fields. */
    private void product(scala.Product product, TreeNode owner, StringBuilder out) {
        String cls = shortName(product.getClass());
        if (product.productArity() == 0 && cls.endsWith("$")) {
            out.append("{\"object\":");
            string(cls, out);
            out.append('}');
            return;
        }
        out.append("{\"product-class\":");
        string(cls, out);
        scala.collection.Iterator names = elementNames(product);
        scala.collection.Iterator values = product.productIterator();
        while (names.hasNext() && values.hasNext()) {
            String name = (String) names.next();
            Object value = values.next();
            if (FIELDS.contains(name)) {
                out.append(",\"").append(name).append("\":");
                value(owner, value, out, NO_TEXT);
            }
        }
        out.append('}');
    }

    /**
     * The names of a case class's fields, in {@code productIterator}'s order. Scala 2.13 has
     * {@code Product.productElementNames} (found by reflection: this source compiles against 2.12
     * too); on 2.12 they are Spark's names of the primary constructor's parameters (all its
     * parameter lists, the first one first: zipped with the values, the extra names are unused).
     */
    private scala.collection.Iterator elementNames(scala.Product product) {
        if (ELEMENT_NAMES != null) {
            try {
                return (scala.collection.Iterator) ELEMENT_NAMES.invoke(product, new Object[0]);
            } catch (Exception e) {
                return scala.collection.Iterator$.MODULE$.empty();
            }
        }
        Class cls = product.getClass();
        Object names = constructorNames.get(cls);
        if (names == null) {
            try {
                names = org.apache.spark.sql.catalyst.ScalaReflection$.MODULE$.getConstructorParameterNames(cls);
            } catch (Throwable e) {
                names = scala.collection.immutable.Nil$.MODULE$;
            }
            constructorNames.put(cls, names);
        }
        return ((scala.collection.Iterable) names).iterator();
    }

    /** The class name without its package: the engine matches short names (a third of the bytes). */
    private static String shortName(Class cls) {
        String name = cls.getName();
        return name.substring(name.lastIndexOf('.') + 1);
    }

    /** The index of {@code value} among {@code owner}'s children (by reference), or -1. */
    private static int childIndex(TreeNode owner, Object value) {
        scala.collection.Iterator it = owner.children().iterator();
        int index = 0;
        while (it.hasNext()) {
            if (it.next() == value) {
                return index;
            }
            index++;
        }
        return -1;
    }

    private static void exprId(ExprId id, StringBuilder out) {
        out.append("{\"id\":").append(id.id()).append('}');
    }

    private static void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                String hex = Integer.toHexString(c);
                out.append("\\u");
                for (int pad = hex.length(); pad < 4; pad++) {
                    out.append('0');
                }
                out.append(hex);
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
