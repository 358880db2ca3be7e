package dev.corobridge.apidump;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.objectweb.asm.Opcodes;

import dev.corobridge.apidump.ClassDecl.Marks;
import dev.corobridge.apidump.ClassDecl.Member;
import dev.corobridge.apidump.JavaSyntax.ClassShape;
import dev.corobridge.apidump.JavaSyntax.MethodShape;
import kotlin.metadata.Visibility;

/**
 * A module's public API as text, from its compiled classes: one block per API class, one line per
 * API field, constructor and method, in Java syntax with generic signatures.
 *
 * <p><b>What is API.</b> A class is, if a user outside the module can name it: JVM-public (a nested
 * class: public, or protected inside an extendable class), every enclosing class API too, not
 * synthetic, local or anonymous, and, if written in Kotlin, Kotlin-{@code public} or
 * {@code protected} ({@code internal} compiles to JVM public and is left out unless it carries
 * {@code @PublishedApi}). Kotlin file facades ({@code FooKt}) are dumped when they have API
 * members; lambdas, {@code $WhenMappings} and multi-file parts never. A class in a package with a
 * segment named {@code internal} ({@code dev.corobridge.bridge.internal}) is never API: it is
 * public only because another module of the project needs it, and its class comment says so. A
 * member of an API class is,
 * if it is public, or protected in a class that is not final, and, if Kotlin declared it, its Kotlin
 * visibility says so as for classes. Compiler-generated synthetic members (javac's bridges,
 * {@code $default} helpers, accessors) are left out; a synthetic member that Kotlin metadata
 * declares ({@code @JvmSynthetic}, {@code @Deprecated(level = HIDDEN)}, reified inline functions)
 * is Kotlin API hidden from Java and is dumped with the modifier {@code synthetic}. Members of
 * non-API classes are not dumped, with one exception: the public and protected members that an API
 * class inherits from a non-API superclass of the module (a package-private base) are callable
 * through it, so they are listed in its block, the base's type variables replaced by the type
 * arguments the subclass gives it. The same holds for a public base in an {@code internal}
 * package.
 *
 * <p><b>Markers.</b> {@code suspend} and {@code inline} come from Kotlin metadata; the JVM
 * signature of a suspend function is kept as it is (trailing {@code Continuation}, returning
 * {@code Object}), so the line shows what Java callers see and the marker what Kotlin callers see.
 * {@code @Deprecated} (the JVM's Deprecated attribute), {@code @kotlin.Deprecated(level = ...)} and
 * {@code @PublishedApi} are shown; no other annotation is.
 *
 * <p><b>Stable.</b> Classes are sorted by binary name; in a class, fields, then constructors, then
 * methods, each sorted by name and then by the rendered line. The text holds no path, time or
 * machine-dependent value, so the same classes give the same bytes anywhere.
 *
 * <p>Stateless; thread-safe.
 */
public final class ApiDump {

    private ApiDump() {
    }

    /** The API of the classes under {@code classesDir} (e.g. {@code target/classes}). */
    public static String render(Path classesDir) {
        return render(ClassReading.readDirectory(classesDir));
    }

    static String render(List<ClassDecl> classes) {
        return new Rendering(classes).render();
    }

    /** One rendering pass: the classes by name, their parsed metadata and the API verdicts so far. */
    private static final class Rendering {
        private final Map<String, ClassDecl> byName = new HashMap<>();
        private final Map<String, KotlinFacts> facts = new HashMap<>();
        private final Map<String, Boolean> apiClass = new HashMap<>();

        Rendering(List<ClassDecl> classes) {
            for (ClassDecl c : classes) {
                if (byName.put(c.name(), c) != null) {
                    throw new IllegalArgumentException("class " + c.name() + " read twice");
                }
            }
            for (ClassDecl c : classes) {
                if (c.kotlinMetadata() != null) {
                    facts.put(c.name(), KotlinFacts.parse(c.name(), c.kotlinMetadata()));
                }
            }
            facts.replaceAll((name, f) -> f.kind() != KotlinFacts.Kind.MULTI_FILE_CLASS_FACADE ? f
                    : f.withPartMembers(f.multiFileParts().stream().map(facts::get)
                            .filter(Objects::nonNull).toList()));
        }

        String render() {
            StringBuilder out = new StringBuilder();
            List<ClassDecl> sorted = new ArrayList<>(byName.values());
            sorted.sort(Comparator.comparing(c -> JavaSyntax.className(c.name())));
            for (ClassDecl c : sorted) {
                if (!isApiClass(c)) {
                    continue;
                }
                List<String> lines = memberLines(c);
                KotlinFacts f = facts.get(c.name());
                boolean facade = f != null && (f.kind() == KotlinFacts.Kind.FILE_FACADE
                        || f.kind() == KotlinFacts.Kind.MULTI_FILE_CLASS_FACADE);
                if (facade && lines.isEmpty()) {
                    continue;
                }
                if (!out.isEmpty()) {
                    out.append('\n');
                }
                out.append(classLine(c)).append(" {\n");
                lines.forEach(line -> out.append("  ").append(line).append('\n'));
                out.append("}\n");
            }
            return out.toString();
        }

        boolean isApiClass(ClassDecl c) {
            if (c == null) {
                return false;
            }
            Boolean known = apiClass.get(c.name());
            if (known == null) {
                known = decideApiClass(c);
                apiClass.put(c.name(), known);
            }
            return known;
        }

        private boolean decideApiClass(ClassDecl c) {
            if (c.is(Opcodes.ACC_SYNTHETIC) || inInternalPackage(c.name())) {
                return false;
            }
            KotlinFacts f = facts.get(c.name());
            if (f != null) {
                switch (f.kind()) {
                    case SYNTHETIC_CLASS, MULTI_FILE_CLASS_PART -> {
                        return false;
                    }
                    case CLASS -> {
                        if (!kotlinVisible(f.classVisibility(), c.marks().publishedApi())) {
                            return false;
                        }
                    }
                    default -> {
                    }
                }
            }
            if (c.nesting() == null) {
                return c.is(Opcodes.ACC_PUBLIC);
            }
            if (c.nesting().outerName() == null || c.nesting().simpleName() == null) {
                return false; // local or anonymous
            }
            ClassDecl outer = byName.get(c.nesting().outerName());
            if (!isApiClass(outer)) {
                return false;
            }
            int access = c.nesting().access();
            return (access & Opcodes.ACC_PUBLIC) != 0
                    || (access & Opcodes.ACC_PROTECTED) != 0 && !outer.is(Opcodes.ACC_FINAL);
        }

        /** Whether the package of the binary name {@code name} has a segment {@code internal}. */
        private static boolean inInternalPackage(String name) {
            int end = name.lastIndexOf('/');
            for (String segment : name.substring(0, Math.max(end, 0)).split("/")) {
                if (segment.equals("internal")) {
                    return true;
                }
            }
            return false;
        }

        private static boolean kotlinVisible(Visibility visibility, boolean publishedApi) {
            return visibility == Visibility.PUBLIC || visibility == Visibility.PROTECTED
                    || visibility == Visibility.INTERNAL && publishedApi;
        }

        /**
         * The rendered API members of an API class: fields, constructors, methods. Public and
         * protected members that it inherits from a superclass of this module that is not API
         * (a package-private base class) are callable through it, so they are listed with its own.
         */
        private List<String> memberLines(ClassDecl c) {
            List<Line> fields = new ArrayList<>();
            List<Line> constructors = new ArrayList<>();
            List<Line> methods = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            addMembers(c, c, Map.of(), fields, constructors, methods, seen);
            // Walking up, the base's type variables are replaced by what the subclass passes
            // (Base<E> under "extends Base<String>" shows String); a raw supertype erases them (null).
            Map<String, String> typeArguments = Map.of();
            ClassDecl child = c;
            for (ClassDecl base = byName.get(c.superName()); base != null && !isApiClass(base);
                    base = byName.get(base.superName())) {
                typeArguments = baseTypeArguments(child, base, typeArguments);
                addMembers(c, base, typeArguments, fields, null, methods, seen);
                child = base;
            }
            List<String> lines = new ArrayList<>();
            for (List<Line> group : List.of(fields, constructors, methods)) {
                // By name first, so that overloads and accessor pairs stay together whatever
                // their modifiers; then by the text, which differs between any two members.
                group.sort(Comparator.comparing(Line::memberName).thenComparing(Line::text));
                group.forEach(line -> lines.add(line.text()));
            }
            return lines;
        }

        private record Line(String memberName, String text) {
        }

        /**
         * {@code base}'s type parameters mapped to the types {@code child} gives them, in the terms
         * of the class being dumped; null when they are erased (raw or already erased).
         */
        private static Map<String, String> baseTypeArguments(ClassDecl child, ClassDecl base,
                Map<String, String> childTypeArguments) {
            List<String> parameters = base.signature() == null ? List.of()
                    : JavaSyntax.typeParameterNames(base.signature());
            if (parameters.isEmpty()) {
                return Map.of();
            }
            if (childTypeArguments == null || child.signature() == null) {
                return null;
            }
            List<String> arguments = JavaSyntax.superclassTypeArguments(child.signature(), childTypeArguments);
            if (arguments.size() != parameters.size()) {
                return null;
            }
            Map<String, String> mapping = new HashMap<>();
            for (int i = 0; i < parameters.size(); i++) {
                mapping.put(parameters.get(i), arguments.get(i));
            }
            return mapping;
        }

        /**
         * Adds the API members that {@code declaring} contributes to {@code c} ({@code c} itself,
         * or a non-API superclass: then without constructors) unless a subclass declared them.
         * {@code typeArguments} replaces the declaring class's type variables; null erases them.
         */
        private void addMembers(ClassDecl c, ClassDecl declaring, Map<String, String> typeArguments,
                List<Line> fields, List<Line> constructors, List<Line> methods, Set<String> seen) {
            KotlinFacts f = facts.get(declaring.name());
            for (Member m : declaring.fields()) {
                Marks marks = apiMarks(c, declaring, f, m);
                if (marks != null && seen.add(m.key())) {
                    fields.add(new Line(m.name(), fieldLine(m, marks, typeArguments)));
                }
            }
            for (Member m : declaring.methods()) {
                boolean constructor = m.name().equals("<init>");
                if (m.name().equals("<clinit>") || constructor && constructors == null) {
                    continue;
                }
                Marks marks = apiMarks(c, declaring, f, m);
                if (marks == null || !seen.add(m.key())) {
                    continue;
                }
                KotlinFacts.Member k = f == null ? null : f.member(m.key());
                Line line = new Line(m.name(), methodLine(declaring, m, marks, k, typeArguments));
                (constructor ? constructors : methods).add(line);
            }
        }

        /**
         * The marks to show if {@code m}, declared by {@code declaring} and reached through the
         * API class {@code c}, is API; null if it is not.
         */
        private Marks apiMarks(ClassDecl c, ClassDecl declaring, KotlinFacts f, Member m) {
            KotlinFacts.Member k = f == null ? null : f.member(m.key());
            if (m.is(Opcodes.ACC_SYNTHETIC) && k == null) {
                // Generated by a compiler: javac's bridges, $default helpers, accessors. (Kotlin's
                // delegates to an interface's DefaultImpls are bridges but not synthetic: callable
                // methods of the class, so they stay.)
                return null;
            }
            boolean accessible = m.is(Opcodes.ACC_PUBLIC)
                    || m.is(Opcodes.ACC_PROTECTED) && !c.is(Opcodes.ACC_FINAL);
            if (!accessible) {
                return null;
            }
            Marks marks = m.marks();
            if (k != null) {
                Marks holder = holderMarks(declaring, k);
                marks = new Marks(marks.publishedApi() || holder.publishedApi(),
                        marks.kotlinDeprecationLevel() != null ? marks.kotlinDeprecationLevel()
                                : holder.kotlinDeprecationLevel());
                if (!kotlinVisible(k.visibility(), marks.publishedApi())) {
                    return null;
                }
                if (k.visibility() != Visibility.INTERNAL) {
                    marks = new Marks(false, marks.kotlinDeprecationLevel()); // @PublishedApi only matters on internal
                }
            } else if (isCompanionField(declaring, f, m)) {
                String companion = declaring.name() + "$" + f.companionObject();
                if (!isApiClass(byName.get(companion))) {
                    return null;
                }
            }
            return marks;
        }

        /** The static field through which Java reaches a Kotlin class's companion object. */
        private static boolean isCompanionField(ClassDecl c, KotlinFacts f, Member m) {
            return f != null && f.companionObject() != null && m.isField() && m.is(Opcodes.ACC_STATIC)
                    && m.name().equals(f.companionObject())
                    && m.descriptor().equals("L" + c.name() + "$" + f.companionObject() + ";");
        }

        /** A property's annotations sit on its synthetic {@code $annotations} method. */
        private static Marks holderMarks(ClassDecl c, KotlinFacts.Member k) {
            if (k.annotationHolder() == null) {
                return Marks.NONE;
            }
            for (Member m : c.methods()) {
                if (m.key().equals(k.annotationHolder())) {
                    return m.marks();
                }
            }
            return Marks.NONE;
        }

        private String classLine(ClassDecl c) {
            int access = c.sourceAccess();
            StringBuilder line = declaration(access, c.marks());
            String kind;
            if (c.is(Opcodes.ACC_ANNOTATION)) {
                kind = "@interface";
            } else if (c.isInterface()) {
                kind = "interface";
            } else if (c.is(Opcodes.ACC_ENUM)) {
                kind = "enum";
            } else if (c.is(Opcodes.ACC_RECORD)) {
                kind = "record";
            } else {
                kind = "class";
            }
            boolean implicitlyStatic = !kind.equals("class");
            if (c.nesting() != null && (access & Opcodes.ACC_STATIC) != 0 && !implicitlyStatic) {
                line.append("static ");
            }
            if (kind.equals("class") && (access & Opcodes.ACC_ABSTRACT) != 0) {
                line.append("abstract ");
            }
            if ((access & Opcodes.ACC_FINAL) != 0) {
                line.append("final ");
            }
            if (!c.permittedSubclasses().isEmpty()) {
                line.append("sealed ");
            }
            line.append(kind).append(' ').append(JavaSyntax.className(c.name()));
            ClassShape shape = JavaSyntax.classShape(c.signature(), c.superName(),
                    c.interfaces().toArray(String[]::new));
            line.append(shape.typeParameters());
            String superClass = shape.superClass();
            if (superClass != null && !c.isInterface() && !superClass.equals("java.lang.Object")
                    && !(kind.equals("record") && superClass.equals("java.lang.Record"))
                    && !(kind.equals("enum") && superClass.startsWith("java.lang.Enum<"))) {
                line.append(" extends ").append(superClass);
            }
            List<String> interfaces = new ArrayList<>(shape.interfaces());
            if (kind.equals("@interface")) {
                interfaces.remove("java.lang.annotation.Annotation");
            }
            if (!interfaces.isEmpty()) {
                line.append(c.isInterface() ? " extends " : " implements ").append(String.join(", ", interfaces));
            }
            if (!c.permittedSubclasses().isEmpty()) {
                line.append(" permits ").append(String.join(", ",
                        c.permittedSubclasses().stream().map(JavaSyntax::className).sorted().toList()));
            }
            return line.toString();
        }

        private static String fieldLine(Member m, Marks marks, Map<String, String> typeArguments) {
            StringBuilder line = declaration(m.access(), marks);
            keyword(line, m, Opcodes.ACC_STATIC, "static");
            keyword(line, m, Opcodes.ACC_FINAL, "final");
            keyword(line, m, Opcodes.ACC_VOLATILE, "volatile");
            line.append(typeArguments == null ? JavaSyntax.fieldType(m.descriptor(), null, Map.of())
                    : JavaSyntax.fieldType(m.descriptor(), m.signature(), typeArguments)).append(' ').append(m.name());
            if (m.constantValue() != null) {
                line.append(" = ").append(Constants.literal(m.descriptor(), m.constantValue()));
            }
            return line.toString();
        }

        private String methodLine(ClassDecl c, Member m, Marks marks, KotlinFacts.Member k,
                Map<String, String> typeArguments) {
            StringBuilder line = declaration(m.access(), marks);
            keyword(line, m, Opcodes.ACC_STATIC, "static");
            if (m.is(Opcodes.ACC_ABSTRACT)) {
                line.append("abstract ");
            } else if (c.isInterface() && !m.is(Opcodes.ACC_STATIC)) {
                line.append("default ");
            }
            keyword(line, m, Opcodes.ACC_FINAL, "final");
            keyword(line, m, Opcodes.ACC_SYNTHETIC, "synthetic");
            if (k != null && k.inline()) {
                line.append("inline ");
            }
            if (k != null && k.suspend()) {
                line.append("suspend ");
            }
            MethodShape shape = typeArguments == null
                    ? JavaSyntax.method(m.descriptor(), null, m.exceptions().toArray(String[]::new), Map.of())
                    : JavaSyntax.method(m.descriptor(), m.signature(), m.exceptions().toArray(String[]::new),
                            typeArguments);
            if (!shape.typeParameters().isEmpty()) {
                line.append(shape.typeParameters()).append(' ');
            }
            boolean constructor = m.name().equals("<init>");
            if (!constructor) {
                line.append(shape.returnType()).append(' ');
            }
            line.append(constructor ? simpleName(c) : m.name()).append('(');
            List<String> parameters = new ArrayList<>(shape.parameters());
            if (m.is(Opcodes.ACC_VARARGS) && !parameters.isEmpty() && parameters.getLast().endsWith("[]")) {
                String last = parameters.removeLast();
                parameters.add(last.substring(0, last.length() - 2) + "...");
            }
            line.append(String.join(", ", parameters)).append(')');
            if (!shape.exceptions().isEmpty()) {
                line.append(" throws ").append(String.join(", ", shape.exceptions()));
            }
            return line.toString();
        }

        private static String simpleName(ClassDecl c) {
            if (c.nesting() != null && c.nesting().simpleName() != null) {
                return c.nesting().simpleName();
            }
            return c.name().substring(c.name().lastIndexOf('/') + 1);
        }

        /** The start of a declaration's line: its annotations, then {@code public} or {@code protected}. */
        private static StringBuilder declaration(int access, Marks marks) {
            StringBuilder line = new StringBuilder();
            if ((access & Opcodes.ACC_DEPRECATED) != 0) {
                line.append("@Deprecated ");
            }
            if (marks.kotlinDeprecationLevel() != null) {
                line.append("@kotlin.Deprecated(level = ").append(marks.kotlinDeprecationLevel()).append(") ");
            }
            if (marks.publishedApi()) {
                line.append("@PublishedApi ");
            }
            line.append((access & Opcodes.ACC_PUBLIC) != 0 ? "public " : "protected ");
            return line;
        }

        /** Appends {@code keyword} and a space if {@code m} has the access {@code flag}. */
        private static void keyword(StringBuilder line, Member m, int flag, String keyword) {
            if (m.is(flag)) {
                line.append(keyword).append(' ');
            }
        }
    }
}
