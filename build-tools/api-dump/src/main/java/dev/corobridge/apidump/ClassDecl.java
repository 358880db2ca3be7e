package dev.corobridge.apidump;

import java.util.List;

import org.objectweb.asm.Opcodes;

/**
 * What a dump needs of one class file: its declaration, its own InnerClasses entry, its
 * annotations that matter for the API and its fields and methods. Read by {@link ClassReading};
 * immutable.
 *
 * @param name internal name, {@code dev/corobridge/bridge/Outcome$Success}
 * @param access the class file's access flags (for a nested class the JVM records
 *     {@code protected} as public and {@code private} as package-private: see {@link #nesting})
 * @param signature generic signature, or null
 * @param superName internal name of the superclass, null for java.lang.Object itself
 * @param interfaces internal names of the direct superinterfaces
 * @param nesting this class's own InnerClasses entry, null for a top-level class
 * @param permittedSubclasses internal names from PermittedSubclasses (a sealed class), or empty
 * @param marks the API-relevant annotations on the class
 * @param kotlinMetadata the {@code @kotlin.Metadata} annotation, null for a Java class
 * @param fields fields in class-file order
 * @param methods methods and constructors in class-file order
 */
record ClassDecl(String name, int access, String signature, String superName, List<String> interfaces,
        Nesting nesting, List<String> permittedSubclasses, Marks marks, RawKotlinMetadata kotlinMetadata,
        List<Member> fields, List<Member> methods) {

    /**
     * The class's entry in its own InnerClasses attribute.
     *
     * @param outerName internal name of the enclosing class; null for a local or anonymous class
     * @param simpleName the source name; null for an anonymous class
     * @param access the flags as declared in source (public, protected, private, static, ...)
     */
    record Nesting(String outerName, String simpleName, int access) {
    }

    /**
     * A field or method. {@code exceptions} is empty for a field; {@code constantValue} is the
     * ConstantValue attribute of a static final field, else null.
     */
    record Member(int access, String name, String descriptor, String signature, List<String> exceptions,
            Object constantValue, Marks marks) {

        boolean isField() {
            return descriptor.charAt(0) != '(';
        }

        /** Name and descriptor: how the JVM, and Kotlin metadata, identify a member. */
        String key() {
            return name + descriptor;
        }

        boolean is(int flag) {
            return (access & flag) != 0;
        }
    }

    /**
     * The annotations that change how a declaration is dumped.
     *
     * @param publishedApi carries {@code @kotlin.PublishedApi}: an internal Kotlin declaration
     *     that public inline functions call, so it is binary API
     * @param kotlinDeprecationLevel the level of {@code @kotlin.Deprecated} ("WARNING" when the
     *     annotation gives none), or null when absent
     */
    record Marks(boolean publishedApi, String kotlinDeprecationLevel) {
        static final Marks NONE = new Marks(false, null);
    }

    /** The raw fields of {@code @kotlin.Metadata} (k, mv, d1, d2, xs, pn, xi). */
    record RawKotlinMetadata(Integer kind, int[] metadataVersion, String[] data1, String[] data2,
            String extraString, String packageName, Integer extraInt) {
    }

    boolean is(int flag) {
        return (access & flag) != 0;
    }

    boolean isInterface() {
        return is(Opcodes.ACC_INTERFACE);
    }

    /** The flags a source reader would see: the InnerClasses entry's for a nested class. */
    int sourceAccess() {
        return nesting != null ? nesting.access() : access;
    }
}
