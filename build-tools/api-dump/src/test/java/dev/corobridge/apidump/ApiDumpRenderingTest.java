package dev.corobridge.apidump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * What {@link ApiDump} writes for the fixture classes (src/test/java/.../fixture/javacode and
 * src/test/kotlin/.../fixture/kotlincode): which declarations are API and how they read.
 */
class ApiDumpRenderingTest {

    private static final String J = "dev.corobridge.apidump.fixture.javacode.";
    private static final String K = "dev.corobridge.apidump.fixture.kotlincode.";
    private static final String DUMP = ApiDump.render(Fixtures.classesDir());

    private static List<String> block(String binaryName) {
        List<String> block = Fixtures.block(DUMP, binaryName);
        assertNotNull(block, () -> binaryName + " is not in the dump:\n" + DUMP);
        return block;
    }

    private static void assertNotDumped(String binaryName) {
        assertNull(Fixtures.header(DUMP, binaryName), () -> binaryName + " must not be in the dump:\n" + DUMP);
    }

    private static void assertHas(List<String> block, String line) {
        assertTrue(block.contains(line), () -> "missing \"" + line + "\" in\n" + String.join("\n", block));
    }

    private static void assertNoMember(List<String> block, String name) {
        for (String line : block) {
            assertFalse(line.contains(" " + name + "(") || line.endsWith(" " + name) || line.contains(" " + name + " = "),
                    () -> name + " must not be dumped, found: " + line);
        }
    }

    @Test
    void javaMembersArePublicOrProtectedOfAnExtendableClass() {
        List<String> publicJava = block(J + "PublicJava");
        assertHas(publicJava, "public PublicJava()");
        assertHas(publicJava, "protected PublicJava(T)");
        assertHas(publicJava, "protected void hook()");
        assertHas(publicJava, "protected volatile int counter");
        assertNoMember(publicJava, "packagePrivateMethod");
        assertNoMember(publicJava, "privateMethod");
        assertNoMember(publicJava, "packagePrivateField");
        assertNoMember(publicJava, "privateField");
        assertEquals(2, publicJava.stream().filter(l -> l.contains(" PublicJava(")).count(),
                "the package-private constructor is not API");

        List<String> finalJava = block(J + "FinalJava");
        assertEquals(List.of("public FinalJava()", "public void visible()"), finalJava,
                "protected members of a final class are not reachable from outside its package");
    }

    @Test
    void nestedClassesAreApiOnlyIfReachable() {
        assertEquals(List.of("public PublicNested()", "public void visible()"), block(J + "PublicJava$PublicNested"));
        assertEquals("protected static class " + J + "PublicJava$ProtectedNested {",
                Fixtures.header(DUMP, J + "PublicJava$ProtectedNested"));
        assertNotDumped(J + "PublicJava$PackagePrivateNested");
        assertNotDumped(J + "PublicJava$PrivateNested");
        assertNotDumped(J + "FinalJava$ProtectedNestedOfFinal");
        assertNotDumped(J + "HiddenJava");
        assertNotDumped(J + "HiddenJava$NestedInHidden");
        assertNotDumped(J + "HiddenBase");
        assertNotDumped(J + "PublicJava$1");
        assertNotDumped(J + "PublicJava$1Local");
        assertEquals(List.of("public Inner(" + J + "PublicJava, int)"), block(J + "PublicJava$Inner"),
                "an inner class's JVM constructor takes the outer instance");
    }

    @Test
    void genericSignaturesReadAsJava() {
        assertEquals("public class " + J + "PublicJava<T extends java.lang.Comparable<? super T>> implements "
                + "java.lang.Comparable<" + J + "PublicJava<T>> {", Fixtures.header(DUMP, J + "PublicJava"));
        List<String> publicJava = block(J + "PublicJava");
        assertHas(publicJava, "public <R> R map(java.util.function.Function<? super T, ? extends R>)");
        assertHas(publicJava, "public T[] toArray(T...)");
        assertHas(publicJava, "public void read() throws java.io.IOException");
        assertHas(publicJava, "public java.util.List<java.lang.String> names");

        assertEquals("public interface " + J + "Shapes$Callback<T extends java.lang.Number & java.lang.Comparable<T>> {",
                Fixtures.header(DUMP, J + "Shapes$Callback"));
        assertEquals(List.of(
                "public abstract <X extends java.lang.Exception> void call(T) throws X",
                "public abstract java.util.List<? super T>[][] grid()",
                "public abstract " + J + "PublicJava<java.lang.Integer>.Inner inner()"), block(J + "Shapes$Callback"));
    }

    @Test
    void compileTimeConstantsShowTheirValue() {
        List<String> publicJava = block(J + "PublicJava");
        assertHas(publicJava, "public static final int INT_CONSTANT = 42");
        assertHas(publicJava, "public static final long LONG_CONSTANT = 7L");
        assertHas(publicJava, "public static final char CHAR_CONSTANT = '\\''");
        assertHas(publicJava, "public static final boolean BOOLEAN_CONSTANT = true");
        assertHas(publicJava, "public static final float FLOAT_CONSTANT = 1.5f");
        assertHas(publicJava, "public static final double DOUBLE_CONSTANT = 0.0 / 0.0");
        assertHas(publicJava, "public static final java.lang.String STRING_CONSTANT = \"tab\\t\\\"quoted\\\" \\u00e9\"");
    }

    @Test
    void compilerGeneratedMembersAreLeftOut() {
        List<String> compareTo = block(J + "PublicJava").stream().filter(l -> l.contains(" compareTo(")).toList();
        assertEquals(List.of("public int compareTo(" + J + "PublicJava<T>)"), compareTo,
                "javac's synthetic bridge compareTo(Object) is not API");
        assertFalse(DUMP.contains("$default"), "Kotlin's default-argument helpers are not API");
        assertFalse(DUMP.contains("access$"), "synthetic accessors are not API");
    }

    @Test
    void membersOfANonApiBaseClassAreListedWithTheirPublicSubclass() {
        assertEquals(List.of(
                "public static final java.lang.String BASE_CONSTANT = \"base\"",
                "public PublicChild()",
                "protected void implemented()",
                "public java.lang.String inherited(java.lang.String)",
                "public void overridden()"), block(J + "PublicChild"));
        assertEquals(List.of(
                "public static final java.lang.String BASE_CONSTANT = \"base\"",
                "public PublicGrandChild()",
                "protected void implemented()",
                "public java.util.List<java.lang.Integer> inherited(java.util.List<java.lang.Integer>)",
                "public java.lang.Integer middle(java.lang.Integer)",
                "public void overridden()"), block(J + "PublicGrandChild"));
        assertEquals(List.of(
                "public static final java.lang.String BASE_CONSTANT = \"base\"",
                "public PublicRawChild()",
                "public java.lang.Object inherited(java.lang.Object)",
                "public void overridden()"), block(J + "PublicRawChild"),
                "a raw supertype erases; protected members of a final class are not API");
    }

    @Test
    void packagesWithAnInternalSegmentAreNotApi() {
        assertNotDumped(J + "internal.SharedBase");
        assertNotDumped(J + "internal.SharedBase$Nested");
        assertNotDumped(J + "internal.SharedInterface");
        assertNotDumped(K + "internal.SharedKotlinKt");
        assertNotDumped(K + "internal.SharedKotlinClass");
        assertEquals("public final class " + J + "PublicOnInternal extends " + J + "internal.SharedBase<java.lang.String> {",
                Fixtures.header(DUMP, J + "PublicOnInternal"));
        assertEquals(List.of(
                "public PublicOnInternal()",
                "public void own()",
                "public java.lang.String shared(java.lang.String)"), block(J + "PublicOnInternal"),
                "what an API class inherits from an internal base is callable through it: listed with it "
                        + "(protected members of a final class are not API)");
    }

    @Test
    void javaKindsAndDeprecations() {
        // Nested enums, records, interfaces and annotations are implicitly static: not repeated.
        assertEquals("public final enum " + J + "Shapes$Color {", Fixtures.header(DUMP, J + "Shapes$Color"));
        assertHas(block(J + "Shapes$Color"), "public static final " + J + "Shapes$Color RED");
        assertEquals("public final record " + J + "Shapes$Point {", Fixtures.header(DUMP, J + "Shapes$Point"));
        assertHas(block(J + "Shapes$Point"), "public int x()");
        assertEquals("public @interface " + J + "Shapes$Marker {", Fixtures.header(DUMP, J + "Shapes$Marker"));
        assertEquals("public sealed interface " + J + "Shapes$Shape permits " + J + "Shapes$Circle, " + J
                + "Shapes$Square {", Fixtures.header(DUMP, J + "Shapes$Shape"));
        assertEquals(List.of(
                "public abstract double area()",
                "public default java.lang.String describe()",
                "public static " + J + "Shapes$Shape unit()"), block(J + "Shapes$Shape"));
        List<String> publicJava = block(J + "PublicJava");
        assertHas(publicJava, "@Deprecated public void deprecatedMethod()");
        assertHas(publicJava, "@kotlin.Deprecated(level = HIDDEN) public void hiddenFromKotlin()");
    }

    @Test
    void kotlinInternalAndPrivateDeclarationsAreLeftOut() {
        List<String> topLevel = block(K + "TopLevelKt");
        assertNoMember(topLevel, "internalFunction");
        assertNoMember(topLevel, "getInternalProperty");
        assertNoMember(topLevel, "privateFunction");
        assertFalse(topLevel.stream().anyMatch(l -> l.contains("internalFunction")), "internal names are mangled, still left out");
        assertNotDumped(K + "InternalOnlyKt");
        assertNotDumped(K + "InternalClass");
        assertNotDumped(K + "InternalClass$NestedInInternal");
        assertNotDumped(K + "KotlinOpen$InternalNested");
        assertNotDumped(K + "KotlinOpen$PrivateNested");

        List<String> open = block(K + "KotlinOpen");
        assertFalse(open.stream().anyMatch(l -> l.contains("forTheModule")), "internal member functions are not API");
        assertFalse(open.contains("public KotlinOpen(java.lang.String)"), "internal constructor");
        assertHas(open, "public KotlinOpen(int)");
        assertHas(open, "protected int forSubclasses()");
        assertHas(open, "public final int getCounter()");
        assertNoMember(open, "setCounter"); // private set
        assertHas(open, "public java.lang.String late"); // lateinit: the field has the setter's visibility
        assertHas(open, "public final long exposed"); // @JvmField
    }

    @Test
    void publishedApiInternalsAreApiAndMarked() {
        List<String> topLevel = block(K + "TopLevelKt");
        assertHas(topLevel, "@PublishedApi public static final int publishedFunction()");
        assertHas(topLevel, "@PublishedApi public static final int getPublishedProperty()");
        assertEquals("@PublishedApi public final class " + K + "PublishedClass {", Fixtures.header(DUMP, K + "PublishedClass"));
        assertEquals(List.of("public PublishedClass()", "public final int visible()"), block(K + "PublishedClass"));
    }

    @Test
    void suspendFunctionsKeepTheirJvmSignatureAndAreMarked() {
        assertHas(block(K + "TopLevelKt"), "public static final suspend java.lang.Object suspending(int, "
                + "kotlin.coroutines.Continuation<? super java.lang.String>)");
        assertHas(block(K + "KotlinOpen"), "public final suspend java.lang.Object load(java.lang.String, "
                + "kotlin.coroutines.Continuation<? super byte[]>)");
        assertHas(block(K + "WithDefault"), "public default suspend java.lang.Object suspendingDefault("
                + "kotlin.coroutines.Continuation<? super java.lang.Integer>)");
        assertHas(block(K + "TopLevelKt"), "public static final kotlin.jvm.functions.Function1<kotlin.coroutines."
                + "Continuation<? super java.lang.Integer>, java.lang.Object> launchesSuspendLambda()");
    }

    @Test
    void kotlinOnlyDeclarationsHiddenFromJavaAreMarkedSynthetic() {
        List<String> topLevel = block(K + "TopLevelKt");
        assertHas(topLevel, "public static final synthetic int kotlinOnly()");
        assertHas(topLevel, "@Deprecated @kotlin.Deprecated(level = HIDDEN) public static final synthetic int hidden()");
        assertHas(topLevel, "@Deprecated @kotlin.Deprecated(level = WARNING) public static final int deprecated()");
        assertHas(topLevel, "public static final synthetic inline <T> boolean reified(java.lang.Object)");
        assertHas(topLevel, "public static final inline <T> T inlined(kotlin.jvm.functions.Function0<? extends T>)");
        assertHas(topLevel, "public static final int overloaded(int)"); // @JvmOverloads
        assertHas(topLevel, "public static final int overloaded(int, int)");
    }

    @Test
    void kotlinClassShapes() {
        assertHas(block(K + "KotlinOpen"), "public static final " + K + "KotlinOpen$Companion Companion");
        assertHas(block(K + "KotlinOpen"), "public static final int LIMIT = 3");
        assertHas(block(K + "KotlinOpen"), "public static final " + K + "KotlinOpen create()");
        assertEquals(List.of("public final " + K + "KotlinOpen create()"), block(K + "KotlinOpen$Companion"));
        assertEquals(List.of("public WithInternalCompanion()"), block(K + "WithInternalCompanion"),
                "an internal companion's field is not API");
        assertNotDumped(K + "WithInternalCompanion$Companion");
        assertHas(block(K + "Singleton"), "public static final " + K + "Singleton INSTANCE");
        assertHas(block(K + "Pair2"), "public final java.lang.String component1()");
        assertHas(block(K + "Direction"), "public static kotlin.enums.EnumEntries<" + K + "Direction> getEntries()");
        assertHas(block(K + "ClassesKt"), "public static final double distance-ddT1KdE(double)");
        assertNotDumped(K + "TopLevelKt$launchesSuspendLambda$1");
        assertFalse(DUMP.contains("TopLevelKt$"), "lambda classes are not API");
    }

    @Test
    void multiFileFacadesTakeTheirMembersFromTheirParts() {
        assertEquals(List.of(
                "public static final int fromPartA()",
                "public static final suspend java.lang.Object fromPartB(kotlin.coroutines.Continuation<? super java.lang.Integer>)"),
                block(K + "MultiFacade"));
        assertFalse(DUMP.contains("MultiFacade__"), "the parts are not API");
    }

    @Test
    void theDumpIsTheSameWhateverOrderTheClassesAreReadIn() {
        List<ClassDecl> classes = new ArrayList<>(ClassReading.readDirectory(Fixtures.classesDir()));
        Collections.shuffle(classes, new Random(13));
        assertEquals(DUMP, ApiDump.render(classes));
        Collections.reverse(classes);
        assertEquals(DUMP, ApiDump.render(classes));
        assertFalse(DUMP.contains(Fixtures.classesDir().toString()), "no paths in the dump");
    }

    @Test
    void classesAndMembersAreSorted() {
        List<String> headers = DUMP.lines().filter(l -> !l.startsWith(" ") && l.endsWith(" {")).toList();
        List<String> names = headers.stream().map(h -> h.replaceAll(".*?(class|interface|enum|record) ([^ <]+).*", "$2")).toList();
        List<String> sorted = new ArrayList<>(names);
        Collections.sort(sorted);
        assertEquals(sorted, names);
    }

    @Test
    void aMissingClassesDirectoryIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ApiDump.render(Fixtures.classesDir().resolve("no-such-dir")));
        assertTrue(e.getMessage().startsWith("no compiled classes at "), e.getMessage());
    }
}
