package dev.corobridge.apidump;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.corobridge.apidump.JavaSyntax.ClassShape;
import dev.corobridge.apidump.JavaSyntax.MethodShape;

/** {@link JavaSyntax}: JVM descriptors and generic signatures in Java syntax. */
class JavaSyntaxTest {

    @Test
    void descriptorsWithoutSignature() {
        MethodShape shape = JavaSyntax.method("([[ILjava/util/Map$Entry;JZ)Ljava/lang/String;", null,
                new String[] {"java/io/IOException"}, Map.of());
        assertEquals(new MethodShape("", "java.lang.String", List.of("int[][]", "java.util.Map$Entry", "long", "boolean"),
                List.of("java.io.IOException")), shape);
        assertEquals("double[]", JavaSyntax.fieldType("[D", null, Map.of()));
    }

    @Test
    void genericMethodSignatures() {
        MethodShape shape = JavaSyntax.method("(Ljava/util/Map;)Ljava/util/List;",
                "<K:Ljava/lang/Object;V::Ljava/lang/Comparable<-TV;>;>(Ljava/util/Map<+TK;*>;)Ljava/util/List<[TV;>;^TK;",
                new String[] {"java/lang/Exception"}, Map.of());
        assertEquals("<K, V extends java.lang.Comparable<? super V>>", shape.typeParameters());
        assertEquals(List.of("java.util.Map<? extends K, ?>"), shape.parameters());
        assertEquals("java.util.List<V[]>", shape.returnType());
        assertEquals(List.of("K"), shape.exceptions(), "a type variable in throws comes from the signature");
    }

    @Test
    void innerClassTypesKeepTheirOuterArguments() {
        assertEquals("a.Outer<java.lang.String>.Inner<java.lang.Integer>",
                JavaSyntax.fieldType("La/Outer$Inner;", "La/Outer<Ljava/lang/String;>.Inner<Ljava/lang/Integer;>;", Map.of()));
    }

    @Test
    void classShapes() {
        ClassShape shape = JavaSyntax.classShape(
                "<T:Ljava/lang/Number;:Ljava/lang/Runnable;>Ljava/util/AbstractList<TT;>;Ljava/util/RandomAccess;",
                "java/util/AbstractList", new String[] {"java/util/RandomAccess"});
        assertEquals(new ClassShape("<T extends java.lang.Number & java.lang.Runnable>", "java.util.AbstractList<T>",
                List.of("java.util.RandomAccess")), shape);
        assertEquals(new ClassShape("", null, List.of()), JavaSyntax.classShape(null, null, new String[0]));
        assertEquals(List.of("T"), JavaSyntax.typeParameterNames(
                "<T:Ljava/lang/Number;:Ljava/lang/Runnable;>Ljava/util/AbstractList<TT;>;Ljava/util/RandomAccess;"));
    }

    @Test
    void typeArgumentsReplaceClassTypeVariablesButNotAMethodsOwn() {
        Map<String, String> e = Map.of("E", "java.lang.String", "T", "java.lang.Long");
        assertEquals(List.of("java.lang.String", "T"), JavaSyntax.method("(Ljava/lang/Object;Ljava/lang/Object;)V",
                "<T:Ljava/lang/Object;>(TE;TT;)V", null, e).parameters(), "the method's own T shadows the class's");
        assertEquals("java.util.List<java.lang.String>", JavaSyntax.fieldType("Ljava/util/List;", "Ljava/util/List<TE;>;", e));
        assertEquals(List.of("java.util.List<java.lang.String>"), JavaSyntax.superclassTypeArguments(
                "<X:Ljava/lang/Object;>La/Base<Ljava/util/List<TX;>;>;", Map.of("X", "java.lang.String")));
        assertEquals(List.of(), JavaSyntax.superclassTypeArguments("<X:Ljava/lang/Object;>Ljava/lang/Object;", Map.of()));
    }

    @Test
    void constantLiterals() {
        assertEquals("'\\u0000'", Constants.literal("C", 0));
        assertEquals("'a'", Constants.literal("C", (int) 'a'));
        assertEquals("false", Constants.literal("Z", 0));
        assertEquals("-3", Constants.literal("S", -3));
        assertEquals("1.0f / 0.0f", Constants.literal("F", Float.POSITIVE_INFINITY));
        assertEquals("-1.0 / 0.0", Constants.literal("D", Double.NEGATIVE_INFINITY));
        assertEquals("0.0f / 0.0f", Constants.literal("F", Float.NaN));
        assertEquals("1.0E-5", Constants.literal("D", 1.0E-5));
        assertEquals("\"a\\\\b\\n\\u2603\"", Constants.literal("Ljava/lang/String;", "a\\b\n\u2603"));
    }
}
