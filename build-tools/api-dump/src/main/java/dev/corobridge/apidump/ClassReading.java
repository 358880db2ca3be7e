package dev.corobridge.apidump;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

import dev.corobridge.apidump.ClassDecl.Marks;
import dev.corobridge.apidump.ClassDecl.Member;
import dev.corobridge.apidump.ClassDecl.Nesting;
import dev.corobridge.apidump.ClassDecl.RawKotlinMetadata;

/**
 * Reads the class files under a directory (a module's {@code target/classes}) into
 * {@link ClassDecl}s with ASM, skipping code: only declarations, signatures and annotations are
 * parsed. {@code module-info} and {@code META-INF/} (multi-release variants) are not API classes
 * of the module's own and are left out. Stateless; thread-safe.
 */
final class ClassReading {

    private static final String KOTLIN_METADATA = "Lkotlin/Metadata;";
    private static final String PUBLISHED_API = "Lkotlin/PublishedApi;";
    private static final String KOTLIN_DEPRECATED = "Lkotlin/Deprecated;";

    private ClassReading() {
    }

    /** Every class file under {@code classesDir}, in no particular order. */
    static List<ClassDecl> readDirectory(Path classesDir) {
        if (!Files.isDirectory(classesDir)) {
            throw new IllegalArgumentException("no compiled classes at " + classesDir
                    + " (run the build's compile phase first)");
        }
        List<ClassDecl> classes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classesDir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String relative = classesDir.relativize(file).toString().replace('\\', '/');
                if (relative.endsWith(".class") && !relative.startsWith("META-INF/")
                        && !relative.endsWith("module-info.class")) {
                    classes.add(read(Files.readAllBytes(file)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes under " + classesDir, e);
        }
        return classes;
    }

    /** One class file's bytes. */
    static ClassDecl read(byte[] classFile) {
        Collector collector = new Collector();
        new ClassReader(classFile).accept(collector,
                ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return collector.result();
    }

    /** The marks of one declaration, filled in as its annotations are visited. */
    private static final class MarksBuilder {
        boolean publishedApi;
        String kotlinDeprecationLevel;

        Marks build() {
            return publishedApi || kotlinDeprecationLevel != null
                    ? new Marks(publishedApi, kotlinDeprecationLevel) : Marks.NONE;
        }

        /** The visitor for one annotation on the declaration, or null to skip it. */
        AnnotationVisitor visit(String descriptor) {
            switch (descriptor) {
                case PUBLISHED_API -> publishedApi = true;
                case KOTLIN_DEPRECATED -> {
                    kotlinDeprecationLevel = "WARNING";
                    return new AnnotationVisitor(Opcodes.ASM9) {
                        @Override
                        public void visitEnum(String name, String enumDescriptor, String value) {
                            if (name.equals("level")) {
                                kotlinDeprecationLevel = value;
                            }
                        }
                    };
                }
                default -> {
                }
            }
            return null;
        }
    }

    private static final class Collector extends ClassVisitor {
        private final MarksBuilder marks = new MarksBuilder();
        private final List<Member> fields = new ArrayList<>();
        private final List<Member> methods = new ArrayList<>();
        private final List<String> permitted = new ArrayList<>();
        private String name;
        private int access;
        private String signature;
        private String superName;
        private List<String> interfaces;
        private Nesting nesting;
        private MetadataCollector kotlinMetadata;

        Collector() {
            super(Opcodes.ASM9);
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                String[] interfaces) {
            this.name = name;
            this.access = access;
            this.signature = signature;
            this.superName = superName;
            this.interfaces = List.of(interfaces);
        }

        @Override
        public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
            if (descriptor.equals(KOTLIN_METADATA)) {
                kotlinMetadata = new MetadataCollector();
                return kotlinMetadata;
            }
            return marks.visit(descriptor);
        }

        @Override
        public void visitInnerClass(String innerName, String outerName, String simpleName, int innerAccess) {
            if (innerName.equals(name)) {
                nesting = new Nesting(outerName, simpleName, innerAccess);
            }
        }

        @Override
        public void visitPermittedSubclass(String permittedSubclass) {
            permitted.add(permittedSubclass);
        }

        @Override
        public FieldVisitor visitField(int fieldAccess, String fieldName, String descriptor, String fieldSignature,
                Object value) {
            MarksBuilder fieldMarks = new MarksBuilder();
            return new FieldVisitor(Opcodes.ASM9) {
                @Override
                public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                    return fieldMarks.visit(annotation);
                }

                @Override
                public void visitEnd() {
                    fields.add(new Member(fieldAccess, fieldName, descriptor, fieldSignature, List.of(), value,
                            fieldMarks.build()));
                }
            };
        }

        @Override
        public MethodVisitor visitMethod(int methodAccess, String methodName, String descriptor,
                String methodSignature, String[] exceptions) {
            MarksBuilder methodMarks = new MarksBuilder();
            return new MethodVisitor(Opcodes.ASM9) {
                @Override
                public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                    return methodMarks.visit(annotation);
                }

                @Override
                public void visitEnd() {
                    methods.add(new Member(methodAccess, methodName, descriptor, methodSignature,
                            exceptions == null ? List.of() : List.of(exceptions), null, methodMarks.build()));
                }
            };
        }

        ClassDecl result() {
            return new ClassDecl(name, access, signature, superName, interfaces, nesting, List.copyOf(permitted),
                    marks.build(), kotlinMetadata == null ? null : kotlinMetadata.build(), List.copyOf(fields),
                    List.copyOf(methods));
        }
    }

    /** Collects {@code @kotlin.Metadata}'s values; its arrays arrive element by element. */
    private static final class MetadataCollector extends AnnotationVisitor {
        private Integer kind;
        private Integer extraInt;
        private String extraString;
        private String packageName;
        private final List<Integer> metadataVersion = new ArrayList<>();
        private final List<String> data1 = new ArrayList<>();
        private final List<String> data2 = new ArrayList<>();

        MetadataCollector() {
            super(Opcodes.ASM9);
        }

        @Override
        public void visit(String name, Object value) {
            switch (name) {
                case "k" -> kind = (Integer) value;
                case "xi" -> extraInt = (Integer) value;
                case "xs" -> extraString = (String) value;
                case "pn" -> packageName = (String) value;
                // ASM hands a primitive array value as one int[].
                case "mv" -> {
                    for (int v : (int[]) value) {
                        metadataVersion.add(v);
                    }
                }
                default -> {
                }
            }
        }

        @Override
        public AnnotationVisitor visitArray(String name) {
            List<?> target = switch (name) {
                case "d1" -> data1;
                case "d2" -> data2;
                case "mv" -> metadataVersion;
                default -> null;
            };
            if (target == null) {
                return null;
            }
            return new AnnotationVisitor(Opcodes.ASM9) {
                @Override
                @SuppressWarnings("unchecked")
                public void visit(String ignored, Object value) {
                    ((List<Object>) target).add(value);
                }
            };
        }

        RawKotlinMetadata build() {
            return new RawKotlinMetadata(kind, metadataVersion.stream().mapToInt(Integer::intValue).toArray(),
                    data1.toArray(String[]::new), data2.toArray(String[]::new), extraString, packageName,
                    extraInt);
        }
    }
}
