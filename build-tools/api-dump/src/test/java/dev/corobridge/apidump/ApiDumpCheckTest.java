package dev.corobridge.apidump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

import dev.corobridge.apidump.ApiDumpCheck.Module;
import dev.corobridge.apidump.ApiDumpCheck.Result;
import dev.corobridge.apidump.ApiDumpCheck.Status;

/**
 * {@link ApiDumpCheck} against a copy of the fixture classes: a change of the API (a method added
 * or removed, a constant changed: the class files rewritten with ASM, as a recompile would) fails
 * the check with a unified diff and the regenerate command; update mode rewrites the file.
 */
class ApiDumpCheckTest {

    private static final String REGENERATE = "./mvnw -pl lib -am verify -Dcorobridge.api.update=true";
    private static final String FINAL_JAVA = "dev/corobridge/apidump/fixture/javacode/FinalJava.class";
    private static final String PUBLIC_JAVA = "dev/corobridge/apidump/fixture/javacode/PublicJava.class";
    /** The one fixture whose API names an internal type (its superclass); copied only where a test wants it. */
    private static final String PUBLIC_ON_INTERNAL = "PublicOnInternal.class";

    @TempDir
    Path temp;
    private Path classes;
    private Module module;
    private Path publicOnInternal;

    @BeforeEach
    void copyFixtureClasses() throws IOException {
        classes = temp.resolve("classes");
        Path source = Fixtures.classesDir();
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path target = classes.resolve("dev/corobridge/apidump/fixture").resolve(source.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else if (file.getFileName().toString().equals(PUBLIC_ON_INTERNAL)) {
                    publicOnInternal = file;
                } else {
                    Files.copy(file, target);
                }
            }
        }
        module = new Module("corobridge-lib", classes, temp.resolve("lib/api/corobridge-lib.api"),
                "lib/api/corobridge-lib.api", REGENERATE);
    }

    @Test
    void aMissingDumpFailsAndSaysHowToCreateIt() {
        Result result = ApiDumpCheck.run(module, false);
        assertEquals(Status.MISSING, result.status());
        assertFalse(result.passed());
        assertEquals("no API dump lib/api/corobridge-lib.api for corobridge-lib. Generate it and commit it:\n  "
                + REGENERATE, result.message());
        assertFalse(Files.exists(module.dumpFile()));
    }

    @Test
    void updateWritesTheDumpAndThenTheCheckPasses() throws IOException {
        Result written = ApiDumpCheck.run(module, true);
        assertEquals(Status.WRITTEN, written.status());
        assertTrue(written.passed());
        String text = Files.readString(module.dumpFile());
        assertEquals(ApiDumpCheck.fileText("corobridge-lib", ApiDump.render(classes)), text);
        assertTrue(text.startsWith("# Public API of corobridge-lib, generated from its compiled classes"), text);
        assertFalse(text.contains("\r"));

        assertEquals(Status.UNCHANGED, ApiDumpCheck.run(module, false).status());
        assertEquals(Status.ALREADY_CURRENT, ApiDumpCheck.run(module, true).status());
    }

    @Test
    void anAddedMethodFailsWithADiffAndTheRegenerateCommand() throws IOException {
        ApiDumpCheck.run(module, true);
        rewrite(FINAL_JAVA, next -> new ClassVisitor(Opcodes.ASM9, next) {
            @Override
            public void visitEnd() {
                MethodVisitor added = super.visitMethod(Opcodes.ACC_PUBLIC, "added", "()V", null, null);
                added.visitCode();
                added.visitInsn(Opcodes.RETURN);
                added.visitMaxs(0, 1);
                added.visitEnd();
                super.visitEnd();
            }
        });

        Result result = ApiDumpCheck.run(module, false);

        assertEquals(Status.DIFFERENT, result.status());
        assertFalse(result.passed());
        String finalJava = "dev.corobridge.apidump.fixture.javacode.FinalJava";
        assertEquals("The public API of corobridge-lib differs from lib/api/corobridge-lib.api"
                + " (- checked in, + compiled classes):\n"
                + "\n"
                + "--- lib/api/corobridge-lib.api (checked in)\n"
                + "+++ lib/api/corobridge-lib.api (compiled classes)\n"
                + "@@ -3,6 +3,7 @@\n"
                + " \n"
                + " public final class " + finalJava + " {\n"
                + "   public FinalJava()\n"
                + "+  public void added()\n"
                + "   public void visible()\n"
                + " }\n"
                + " \n"
                + "\n"
                + "If the change is intended, regenerate the dump and commit it with the change:\n"
                + "  " + REGENERATE + "\n", result.message());
    }

    @Test
    void aRemovedMethodAndAChangedConstantShowAsRemovedAndChangedLines() throws IOException {
        ApiDumpCheck.run(module, true);
        rewrite(FINAL_JAVA, next -> new ClassVisitor(Opcodes.ASM9, next) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                return name.equals("visible") ? null : super.visitMethod(access, name, descriptor, signature, exceptions);
            }
        });
        rewrite(PUBLIC_JAVA, next -> new ClassVisitor(Opcodes.ASM9, next) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                return super.visitField(access, name, descriptor, signature, name.equals("INT_CONSTANT") ? 43 : value);
            }
        });

        Result result = ApiDumpCheck.run(module, false);

        assertEquals(Status.DIFFERENT, result.status());
        String message = result.message();
        assertTrue(message.contains("\n-  public void visible()\n"), message);
        assertTrue(message.contains("\n-  public static final int INT_CONSTANT = 42\n+  public static final int INT_CONSTANT = 43\n"), message);
        assertTrue(message.contains(" @@ public class dev.corobridge.apidump.fixture.javacode.PublicJava<"), message);
        assertTrue(message.endsWith("\n  " + REGENERATE + "\n"), message);

        assertEquals(Status.WRITTEN, ApiDumpCheck.run(module, true).status());
        assertEquals(Status.UNCHANGED, ApiDumpCheck.run(module, false).status());
    }

    @Test
    void aHandEditedDumpFailsToo() throws IOException {
        ApiDumpCheck.run(module, true);
        String text = Files.readString(module.dumpFile());
        Files.writeString(module.dumpFile(), text.replace("  public void visible()\n", ""));
        Result result = ApiDumpCheck.run(module, false);
        assertEquals(Status.DIFFERENT, result.status());
        assertTrue(result.message().contains("\n+  public void visible()\n"), result.message());
    }

    @Test
    void lineEndingsAndAMissingFinalNewlineDoNotCount() throws IOException {
        ApiDumpCheck.run(module, true);
        String text = Files.readString(module.dumpFile());
        Files.writeString(module.dumpFile(), text.replace("\n", "\r\n"), StandardCharsets.UTF_8);
        assertEquals(Status.UNCHANGED, ApiDumpCheck.run(module, false).status());
        Files.writeString(module.dumpFile(), text.substring(0, text.length() - 1), StandardCharsets.UTF_8);
        assertEquals(Status.UNCHANGED, ApiDumpCheck.run(module, false).status());
        assertEquals(Status.ALREADY_CURRENT, ApiDumpCheck.run(module, true).status());
    }

    @Test
    void anApiClassExtendingAnInternalClassFailsTheCheckAndTheUpdate() throws IOException {
        ApiDumpCheck.run(module, true);
        String before = Files.readString(module.dumpFile());
        Files.copy(publicOnInternal, classes.resolve("dev/corobridge/apidump/fixture/javacode/" + PUBLIC_ON_INTERNAL));

        for (boolean update : new boolean[] {false, true}) {
            Result result = ApiDumpCheck.run(module, update);
            assertEquals(Status.INTERNAL_TYPE, result.status());
            assertFalse(result.passed());
            String j = "dev.corobridge.apidump.fixture.javacode.";
            assertTrue(result.message().startsWith("The public API of corobridge-lib names types of internal packages"),
                    result.message());
            assertTrue(result.message().contains("\n  " + j + "internal.SharedBase in: public final class " + j
                    + "PublicOnInternal extends " + j + "internal.SharedBase<java.lang.String>\n"), result.message());
        }
        assertEquals(before, Files.readString(module.dumpFile()), "update mode writes nothing while an internal type leaks");
    }

    @Test
    void everyKindOfSignatureIsSearchedGenericArgumentsIncluded() {
        String api = """
                public final class a.Api<T extends a.internal.Bound> implements a.internal.Face<a.Api<T>> {
                  public static a.internal.Field FIELD
                  public a.Api(a.internal.Param)
                  public java.util.List<? extends a.internal.Element> list()
                  public void fails() throws a.internal.Failure
                  public a.internal.Outer$Nested nested()
                  public void internal(java.lang.String)
                  public a.internalish.Fine fine(my_internal.Fine, a.internal2.Fine)
                }
                """;
        List<String> types = InternalTypes.leaks(api).stream().map(InternalTypes.Leak::type).toList();
        assertEquals(List.of("a.internal.Bound", "a.internal.Face", "a.internal.Field", "a.internal.Param",
                "a.internal.Element", "a.internal.Failure", "a.internal.Outer$Nested"), types);
        assertEquals("a.internal.Field in: public final class a.Api<T extends a.internal.Bound> implements"
                + " a.internal.Face<a.Api<T>> { public static a.internal.Field FIELD }",
                InternalTypes.leaks(api).get(2).toString());
    }

    @Test
    void kotlinxPlugInPointsAreAllowedAndTheDumpSaysWhy() {
        String api = """
                public final class a.Factory implements kotlinx.coroutines.internal.MainDispatcherFactory {
                  public kotlinx.coroutines.MainCoroutineDispatcher create(java.util.List<? extends kotlinx.coroutines.internal.MainDispatcherFactory>)
                }
                """;
        assertEquals(List.of(), InternalTypes.leaks(api));
        String text = ApiDumpCheck.fileText("corobridge-lib", api);
        assertTrue(text.contains("\n# Names kotlinx.coroutines.internal.MainDispatcherFactory on purpose: how"
                + " kotlinx.coroutines finds a Dispatchers.Main implementation"), text);
        assertFalse(text.contains("kotlinx.coroutines.Delay"), text);
        assertFalse(ApiDumpCheck.fileText("corobridge-lib", "public final class a.B {\n}\n").contains("on purpose"));
    }

    private void rewrite(String classFile, Function<ClassVisitor, ClassVisitor> change) throws IOException {
        Path file = classes.resolve(classFile);
        ClassReader reader = new ClassReader(Files.readAllBytes(file));
        ClassWriter writer = new ClassWriter(0);
        reader.accept(change.apply(writer), 0);
        Files.write(file, writer.toByteArray());
    }
}
