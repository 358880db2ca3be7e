package dev.corobridge.apidump;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.objectweb.asm.Opcodes;
import org.objectweb.asm.signature.SignatureReader;
import org.objectweb.asm.signature.SignatureVisitor;

/**
 * Renders JVM descriptors and generic signatures (JVMS 4.7.9.1) in Java source syntax:
 * {@code (Ljava/util/List<+TT;>;)TT;} becomes parameters {@code java.util.List<? extends T>} and
 * return type {@code T}.
 *
 * <p>Class names keep their binary form with dots for packages and {@code $} for nesting
 * ({@code dev.corobridge.bridge.Outcome$Success}), so every name in a dump is unambiguous. A plain
 * descriptor is a signature without type variables, so members without a {@code Signature}
 * attribute go through the same code.
 *
 * <p>Stateless; thread-safe.
 */
final class JavaSyntax {

    private JavaSyntax() {
    }

    /** A method's parts, each already in Java syntax. */
    record MethodShape(String typeParameters, String returnType, List<String> parameters,
            List<String> exceptions) {
    }

    /** A class's declared type parameters and supertypes, in Java syntax. */
    record ClassShape(String typeParameters, String superClass, List<String> interfaces) {
    }

    /** {@code java/util/Map$Entry} as {@code java.util.Map$Entry}. */
    static String className(String internalName) {
        return internalName.replace('/', '.');
    }

    /**
     * A field's type from its generic signature when it has one, else from its descriptor; type
     * variables named in {@code typeArguments} are replaced by the given types.
     */
    static String fieldType(String descriptor, String signature, Map<String, String> typeArguments) {
        TypeBuilder type = new TypeBuilder(typeArguments);
        new SignatureReader(signature != null ? signature : descriptor).acceptType(type);
        return type.render();
    }

    /**
     * A method's type parameters, return type, parameters and thrown types. The generic signature
     * wins over the descriptor; thrown types come from the signature when it names any (it does
     * when one is a type variable), else from the {@code Exceptions} attribute. Type variables
     * of the class named in {@code typeArguments} are replaced by the given types (a method's own
     * type parameters shadow them).
     */
    static MethodShape method(String descriptor, String signature, String[] exceptions,
            Map<String, String> typeArguments) {
        MethodBuilder method = new MethodBuilder(typeArguments, true);
        new SignatureReader(signature != null ? signature : descriptor).accept(method);
        List<String> thrown = new ArrayList<>();
        if (!method.exceptions.isEmpty()) {
            method.exceptions.forEach(e -> thrown.add(e.render()));
        } else if (exceptions != null) {
            for (String e : exceptions) {
                thrown.add(className(e));
            }
        }
        List<String> parameters = new ArrayList<>();
        method.parameters.forEach(p -> parameters.add(p.render()));
        return new MethodShape(method.typeParameters(), method.returnType.render(), parameters, thrown);
    }

    /** A class's type parameters and supertypes; {@code superName} is null for java.lang.Object. */
    static ClassShape classShape(String signature, String superName, String[] interfaces) {
        if (signature == null) {
            List<String> names = new ArrayList<>();
            for (String i : interfaces) {
                names.add(className(i));
            }
            return new ClassShape("", superName == null ? null : className(superName), names);
        }
        MethodBuilder shape = new MethodBuilder(Map.of(), false);
        new SignatureReader(signature).accept(shape);
        List<String> names = new ArrayList<>();
        shape.interfaces.forEach(i -> names.add(i.render()));
        return new ClassShape(shape.typeParameters(),
                shape.superClass == null ? null : shape.superClass.render(), names);
    }

    /** The names of the type parameters a class signature declares, in order. */
    static List<String> typeParameterNames(String classSignature) {
        MethodBuilder shape = new MethodBuilder(Map.of(), false);
        new SignatureReader(classSignature).accept(shape);
        return shape.typeParameters.stream().map(p -> p.name).toList();
    }

    /**
     * The type arguments that a class signature gives its superclass ({@code String} for
     * {@code extends Base<String>}), with {@code typeArguments} applied; empty if it gives none.
     */
    static List<String> superclassTypeArguments(String classSignature, Map<String, String> typeArguments) {
        MethodBuilder shape = new MethodBuilder(typeArguments, false);
        new SignatureReader(classSignature).accept(shape);
        return shape.superClass == null ? List.of() : shape.superClass.outermostArguments();
    }

    /** Collects the top level of a class or method signature; each type goes to a TypeBuilder. */
    private static final class MethodBuilder extends SignatureVisitor {
        private final List<TypeParameter> typeParameters = new ArrayList<>();
        private final List<TypeBuilder> parameters = new ArrayList<>();
        private final List<TypeBuilder> exceptions = new ArrayList<>();
        private final List<TypeBuilder> interfaces = new ArrayList<>();
        private TypeBuilder returnType;
        private TypeBuilder superClass;
        /** The class's type arguments still in scope: a method's own type parameter shadows its name. */
        private final Map<String, String> typeArguments;
        private final boolean method;

        /**
         * @param method whether this is a method signature (its type parameters shadow the
         *     class's); in a class signature the type arguments are for the class's own
         */
        MethodBuilder(Map<String, String> typeArguments, boolean method) {
            super(Opcodes.ASM9);
            this.typeArguments = new HashMap<>(typeArguments);
            this.method = method;
        }

        @Override
        public void visitFormalTypeParameter(String name) {
            typeParameters.add(new TypeParameter(name));
            if (method) {
                typeArguments.remove(name);
            }
        }

        @Override
        public SignatureVisitor visitClassBound() {
            TypeBuilder bound = type();
            typeParameters.getLast().classBound = bound;
            return bound;
        }

        @Override
        public SignatureVisitor visitInterfaceBound() {
            return addedTo(typeParameters.getLast().interfaceBounds);
        }

        @Override
        public SignatureVisitor visitSuperclass() {
            superClass = type();
            return superClass;
        }

        @Override
        public SignatureVisitor visitInterface() {
            return addedTo(interfaces);
        }

        @Override
        public SignatureVisitor visitParameterType() {
            return addedTo(parameters);
        }

        @Override
        public SignatureVisitor visitReturnType() {
            returnType = type();
            return returnType;
        }

        @Override
        public SignatureVisitor visitExceptionType() {
            return addedTo(exceptions);
        }

        /** A builder for the next type in the signature, resolving the type arguments in scope. */
        private TypeBuilder type() {
            return new TypeBuilder(typeArguments);
        }

        /** A builder for the next type in the signature, appended to {@code types}. */
        private TypeBuilder addedTo(List<TypeBuilder> types) {
            TypeBuilder type = type();
            types.add(type);
            return type;
        }

        /** {@code <T extends java.lang.Comparable<T>, U>}, or "" when there are none. */
        String typeParameters() {
            if (typeParameters.isEmpty()) {
                return "";
            }
            List<String> rendered = new ArrayList<>();
            for (TypeParameter p : typeParameters) {
                rendered.add(p.render());
            }
            return "<" + String.join(", ", rendered) + ">";
        }
    }

    /** One formal type parameter; an Object class bound is implicit in Java and not shown. */
    private static final class TypeParameter {
        final String name;
        TypeBuilder classBound;
        final List<TypeBuilder> interfaceBounds = new ArrayList<>();

        TypeParameter(String name) {
            this.name = name;
        }

        String render() {
            List<String> bounds = new ArrayList<>();
            if (classBound != null) {
                String bound = classBound.render();
                if (!bound.equals("java.lang.Object")) {
                    bounds.add(bound);
                }
            }
            interfaceBounds.forEach(b -> bounds.add(b.render()));
            return bounds.isEmpty() ? name : name + " extends " + String.join(" & ", bounds);
        }
    }

    /**
     * Builds one type. Type arguments and array components are visited after this builder has
     * been handed out, so the text is kept as parts (strings and child builders) and joined only
     * by {@link #render()}.
     */
    private static final class TypeBuilder extends SignatureVisitor {
        private final List<Object> parts = new ArrayList<>();
        private final Map<String, String> typeArguments;
        private TypeBuilder arrayComponent;
        /** Whether a '<' is open for the innermost class type written so far. */
        private boolean argumentsOpen;
        /** The arguments of the outermost class type, for {@link #outermostArguments()}. */
        private final List<Object> outermostArguments = new ArrayList<>();
        private boolean innerClassSeen;

        TypeBuilder(Map<String, String> typeArguments) {
            super(Opcodes.ASM9);
            this.typeArguments = typeArguments;
        }

        @Override
        public void visitBaseType(char descriptor) {
            parts.add(switch (descriptor) {
                case 'Z' -> "boolean";
                case 'B' -> "byte";
                case 'C' -> "char";
                case 'S' -> "short";
                case 'I' -> "int";
                case 'J' -> "long";
                case 'F' -> "float";
                case 'D' -> "double";
                case 'V' -> "void";
                default -> throw new IllegalArgumentException("not a base type: " + descriptor);
            });
        }

        @Override
        public void visitTypeVariable(String name) {
            parts.add(typeArguments.getOrDefault(name, name));
        }

        @Override
        public SignatureVisitor visitArrayType() {
            arrayComponent = new TypeBuilder(typeArguments);
            return arrayComponent;
        }

        @Override
        public void visitClassType(String name) {
            parts.add(className(name));
        }

        @Override
        public void visitInnerClassType(String name) {
            innerClassSeen = true;
            closeArguments();
            parts.add("." + name);
        }

        @Override
        public void visitTypeArgument() {
            nextArgument();
            parts.add("?");
            if (!innerClassSeen) {
                outermostArguments.add("?");
            }
        }

        @Override
        public SignatureVisitor visitTypeArgument(char wildcard) {
            nextArgument();
            if (wildcard == SignatureVisitor.EXTENDS) {
                parts.add("? extends ");
            } else if (wildcard == SignatureVisitor.SUPER) {
                parts.add("? super ");
            }
            TypeBuilder argument = new TypeBuilder(typeArguments);
            parts.add(argument);
            if (!innerClassSeen) {
                String prefix = wildcard == SignatureVisitor.EXTENDS ? "? extends "
                        : wildcard == SignatureVisitor.SUPER ? "? super " : "";
                outermostArguments.add(prefix.isEmpty() ? argument : new Object[] {prefix, argument});
            }
            return argument;
        }

        @Override
        public void visitEnd() {
            closeArguments();
        }

        private void nextArgument() {
            parts.add(argumentsOpen ? ", " : "<");
            argumentsOpen = true;
        }

        private void closeArguments() {
            if (argumentsOpen) {
                parts.add(">");
                argumentsOpen = false;
            }
        }

        /** The rendered type arguments of the outermost class type. */
        List<String> outermostArguments() {
            List<String> rendered = new ArrayList<>();
            for (Object argument : outermostArguments) {
                if (argument instanceof TypeBuilder type) {
                    rendered.add(type.render());
                } else if (argument instanceof Object[] wildcard) {
                    rendered.add(wildcard[0] + ((TypeBuilder) wildcard[1]).render());
                } else {
                    rendered.add((String) argument);
                }
            }
            return rendered;
        }

        String render() {
            if (arrayComponent != null) {
                return arrayComponent.render() + "[]";
            }
            StringBuilder text = new StringBuilder();
            for (Object part : parts) {
                text.append(part instanceof TypeBuilder type ? type.render() : (String) part);
            }
            return text.toString();
        }
    }
}
