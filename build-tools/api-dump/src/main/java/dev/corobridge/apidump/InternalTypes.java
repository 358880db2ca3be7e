package dev.corobridge.apidump;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the types of {@code internal} packages that a rendered API names: in a class's
 * {@code extends}/{@code implements} clause, a type parameter's bound, a field's type, a method's
 * parameters, return type or {@code throws} clause, generic arguments included. A class in such a
 * package is not API ({@link ApiDump}), so a public signature that names one hands users a type
 * they must not use: the check of a module fails on any ({@link ApiDumpCheck}).
 *
 * <p>The dump writes every type by its qualified name, so a type of an internal package shows as a
 * dotted name with a segment {@code internal} before the class name; member names never contain a
 * dot, so they cannot match.
 *
 * <p><b>Allowed on purpose.</b> {@link #ALLOWED} are the plug-in points of kotlinx.coroutines
 * that a dispatcher has to implement to be a first-class kotlinx dispatcher, as kotlinx's own
 * Swing, JavaFX and Android dispatchers do. They are not corobridge's internals, and each module
 * that names one says so, with the reason, in the header of its dump file.
 *
 * <p>Stateless; thread-safe.
 */
public final class InternalTypes {

    /**
     * kotlinx.coroutines types a public signature may name, with the reason. {@code Delay} is not
     * in an internal package (the check would not see it) but is marked
     * {@code @InternalCoroutinesApi}: it is listed so that the dumps say why it is there too.
     */
    static final Map<String, String> ALLOWED;

    static {
        Map<String, String> allowed = new LinkedHashMap<>();
        allowed.put("kotlinx.coroutines.Delay", "how a dispatcher runs delay() and withTimeout() on its own timers"
                + " (@InternalCoroutinesApi; kotlinx's Swing, JavaFX and Android dispatchers implement it too)");
        allowed.put("kotlinx.coroutines.internal.MainDispatcherFactory", "how kotlinx.coroutines finds a"
                + " Dispatchers.Main implementation through ServiceLoader (kotlinx's Swing, JavaFX and Android"
                + " dispatchers plug in the same way)");
        ALLOWED = Map.copyOf(allowed);
    }

    /** A qualified name with a package segment {@code internal}, not preceded by more of a name. */
    private static final Pattern INTERNAL_TYPE = Pattern.compile(
            "(?<![\\w$.])(?:[A-Za-z_$][\\w$]*\\.)*internal(?:\\.[A-Za-z_$][\\w$]*)+");

    private InternalTypes() {
    }

    /** One public signature that names a type of an internal package. */
    public record Leak(String declaration, String type) {
        @Override
        public String toString() {
            return type + " in: " + declaration;
        }
    }

    /**
     * Every signature of {@code api} (the text of {@link ApiDump#render}) that names a type of an
     * internal package not in {@link #ALLOWED}, in the order of the dump: a class line for its
     * supertypes and type parameters, a member line prefixed with its class.
     */
    public static List<Leak> leaks(String api) {
        List<Leak> leaks = new ArrayList<>();
        String owner = null;
        for (String line : api.lines().toList()) {
            if (line.isEmpty() || line.equals("}")) {
                continue;
            }
            boolean member = line.startsWith(" ");
            if (!member) {
                owner = line.endsWith(" {") ? line.substring(0, line.length() - 2) : line;
            }
            Matcher m = INTERNAL_TYPE.matcher(line);
            while (m.find()) {
                String type = m.group();
                if (!ALLOWED.containsKey(type)) {
                    leaks.add(new Leak(member ? owner + " { " + line.strip() + " }" : owner, type));
                }
            }
        }
        return leaks;
    }

    /**
     * The comment lines for the dump file's header: one per {@link #ALLOWED} type that {@code api}
     * names, with why it may; empty when it names none.
     */
    static String allowedNote(String api) {
        StringBuilder note = new StringBuilder();
        ALLOWED.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .filter(e -> Pattern.compile("(?<![\\w$.])" + Pattern.quote(e.getKey()) + "(?![\\w$])").matcher(api).find())
                .forEach(e -> note.append("# Names ").append(e.getKey()).append(" on purpose: ")
                        .append(e.getValue()).append(".\n"));
        return note.toString();
    }
}
