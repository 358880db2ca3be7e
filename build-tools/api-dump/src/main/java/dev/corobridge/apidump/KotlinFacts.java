package dev.corobridge.apidump;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.corobridge.apidump.ClassDecl.RawKotlinMetadata;
import kotlin.Metadata;
import kotlin.metadata.Attributes;
import kotlin.metadata.KmClass;
import kotlin.metadata.KmConstructor;
import kotlin.metadata.KmFunction;
import kotlin.metadata.KmPackage;
import kotlin.metadata.KmProperty;
import kotlin.metadata.KmPropertyAccessorAttributes;
import kotlin.metadata.Visibility;
import kotlin.metadata.jvm.JvmExtensionsKt;
import kotlin.metadata.jvm.JvmFieldSignature;
import kotlin.metadata.jvm.JvmMetadataUtil;
import kotlin.metadata.jvm.JvmMethodSignature;
import kotlin.metadata.jvm.KotlinClassMetadata;

/**
 * What the Kotlin compiler knows about one class file and the JVM does not: the Kotlin visibility
 * of the class and of each member ({@code internal} compiles to JVM public), which functions are
 * {@code suspend} or {@code inline}, and which JVM members a property turned into. Read from
 * {@code @kotlin.Metadata} with kotlin-metadata-jvm; members are keyed by JVM name + descriptor,
 * as the metadata records them.
 *
 * <p>Immutable after construction; thread-safe.
 */
final class KotlinFacts {

    /** The metadata kinds that matter here (the {@code k} field of {@code @kotlin.Metadata}). */
    enum Kind {
        /** A class, interface, object or companion. */
        CLASS,
        /** {@code FooKt}: the top-level declarations of one file. */
        FILE_FACADE,
        /** A lambda, {@code $WhenMappings}, {@code $DefaultImpls} and the like: never API. */
        SYNTHETIC_CLASS,
        /** The facade of {@code @file:JvmMultifileClass} files: its members live in the parts. */
        MULTI_FILE_CLASS_FACADE,
        /** One file's part of a multi-file facade: an implementation detail. */
        MULTI_FILE_CLASS_PART
    }

    /**
     * One JVM member as Kotlin declared it.
     *
     * @param visibility the Kotlin visibility (for an accessor, the accessor's own)
     * @param suspend a {@code suspend fun}: the JVM method takes a trailing Continuation
     * @param inline an {@code inline fun}: callers copy its body, so its body is API too
     * @param annotationHolder for a property's JVM members, the key of the synthetic
     *     {@code $annotations} method that carries the property's annotations, else null
     */
    record Member(Visibility visibility, boolean suspend, boolean inline, String annotationHolder) {
    }

    private final Kind kind;
    private final Visibility classVisibility;
    private final String companionObject;
    private final List<String> multiFileParts;
    private final Map<String, Member> members = new HashMap<>();

    private KotlinFacts(Kind kind, Visibility classVisibility, String companionObject, List<String> multiFileParts) {
        this.kind = kind;
        this.classVisibility = classVisibility;
        this.companionObject = companionObject;
        this.multiFileParts = multiFileParts;
    }

    /**
     * Parses a class's metadata.
     *
     * @throws IllegalStateException if the metadata cannot be read, e.g. written by a Kotlin
     *     compiler newer than this tool's kotlin-metadata-jvm understands (keep both at
     *     {@code kotlin.version})
     */
    static KotlinFacts parse(String className, RawKotlinMetadata raw) {
        Metadata metadata = JvmMetadataUtil.Metadata(raw.kind(), raw.metadataVersion(), raw.data1(), raw.data2(),
                raw.extraString(), raw.packageName(), raw.extraInt());
        KotlinClassMetadata parsed;
        try {
            parsed = KotlinClassMetadata.readStrict(metadata);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("cannot read the Kotlin metadata of " + className + ": "
                    + e.getMessage() + " (the api-dump tool's kotlin-metadata-jvm must match kotlin.version)", e);
        }
        if (parsed instanceof KotlinClassMetadata.Class c) {
            KmClass km = c.getKmClass();
            KotlinFacts facts = new KotlinFacts(Kind.CLASS, Attributes.getVisibility(km), km.getCompanionObject(),
                    List.of());
            for (KmConstructor constructor : km.getConstructors()) {
                JvmMethodSignature signature = JvmExtensionsKt.getSignature(constructor);
                if (signature != null) {
                    facts.members.put(signature.toString(),
                            new Member(Attributes.getVisibility(constructor), false, false, null));
                }
            }
            facts.addFunctionsAndProperties(km.getFunctions(), km.getProperties());
            return facts;
        }
        if (parsed instanceof KotlinClassMetadata.FileFacade f) {
            KotlinFacts facts = new KotlinFacts(Kind.FILE_FACADE, null, null, List.of());
            facts.addPackage(f.getKmPackage());
            return facts;
        }
        if (parsed instanceof KotlinClassMetadata.MultiFileClassFacade f) {
            return new KotlinFacts(Kind.MULTI_FILE_CLASS_FACADE, null, null, List.copyOf(f.getPartClassNames()));
        }
        if (parsed instanceof KotlinClassMetadata.MultiFileClassPart p) {
            KotlinFacts facts = new KotlinFacts(Kind.MULTI_FILE_CLASS_PART, null, null, List.of());
            facts.addPackage(p.getKmPackage());
            return facts;
        }
        // SyntheticClass, and Unknown (a kind from a future compiler): nothing of it is API.
        return new KotlinFacts(Kind.SYNTHETIC_CLASS, null, null, List.of());
    }

    /**
     * The facts of a multi-file facade: its own metadata only names its parts, which declare the
     * members that the facade delegates to with the same names and descriptors.
     */
    KotlinFacts withPartMembers(List<KotlinFacts> parts) {
        KotlinFacts merged = new KotlinFacts(kind, classVisibility, companionObject, multiFileParts);
        merged.members.putAll(members);
        parts.forEach(part -> merged.members.putAll(part.members));
        return merged;
    }

    private void addPackage(KmPackage km) {
        addFunctionsAndProperties(km.getFunctions(), km.getProperties());
    }

    private void addFunctionsAndProperties(List<KmFunction> functions, List<KmProperty> properties) {
        for (KmFunction function : functions) {
            JvmMethodSignature signature = JvmExtensionsKt.getSignature(function);
            if (signature != null) {
                members.put(signature.toString(), new Member(Attributes.getVisibility(function),
                        Attributes.isSuspend(function), Attributes.isInline(function), null));
            }
        }
        for (KmProperty property : properties) {
            Visibility visibility = Attributes.getVisibility(property);
            JvmMethodSignature holder = JvmExtensionsKt.getSyntheticMethodForAnnotations(property);
            String holderKey = holder == null ? null : holder.toString();
            JvmFieldSignature field = JvmExtensionsKt.getFieldSignature(property);
            if (field != null) {
                members.put(field.toString(), new Member(visibility, false, false, holderKey));
            }
            addAccessor(JvmExtensionsKt.getGetterSignature(property), property.getGetter(), holderKey);
            addAccessor(JvmExtensionsKt.getSetterSignature(property), property.getSetter(), holderKey);
        }
    }

    private void addAccessor(JvmMethodSignature signature, KmPropertyAccessorAttributes accessor, String holderKey) {
        if (signature != null && accessor != null) {
            members.put(signature.toString(), new Member(Attributes.getVisibility(accessor), false,
                    Attributes.isInline(accessor), holderKey));
        }
    }

    Kind kind() {
        return kind;
    }

    /** The class's Kotlin visibility; null unless {@link #kind()} is CLASS. */
    Visibility classVisibility() {
        return classVisibility;
    }

    /** The simple name of the class's companion object, or null. */
    String companionObject() {
        return companionObject;
    }

    /** The internal names of a multi-file facade's parts; empty for other kinds. */
    List<String> multiFileParts() {
        return multiFileParts;
    }

    /** The Kotlin declaration behind a JVM member, or null if Kotlin declared none (a Java-only or generated member). */
    Member member(String nameAndDescriptor) {
        return members.get(nameAndDescriptor);
    }
}
