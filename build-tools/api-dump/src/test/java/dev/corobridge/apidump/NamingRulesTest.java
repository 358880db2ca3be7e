package dev.corobridge.apidump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The naming rules of CONTRIBUTING.md ("Naming"), checked over every published module's API dump
 * ({@code <module>/api/*.api}), so that a new public name that breaks one fails the build:
 * <ul>
 *   <li><b>waits</b>: a method returning a handle ({@code Awaitable}, {@code Task}, {@code RingOp},
 *       {@code CompletionStage}, {@code CompletableFuture}) is never {@code whenX}; an instance
 *       method of a live type returning one ends in {@code Async} (what builds tasks, on
 *       {@code Task} and {@code TaskScope}, and {@code to…}/{@code as…} conversions aside);</li>
 *   <li><b>Kotlin awaits</b>: a suspend function named {@code await…} is {@code await},
 *       {@code awaitIo} or {@code awaitUntil};</li>
 *   <li><b>getters</b>: a value type (record, enum, annotation, sealed interface, and classes named
 *       {@code …Config}, {@code …Builder}, {@code …Exception}, {@code …Error}, {@code …Report},
 *       {@code …Metrics}) has no {@code getX()}; a live type's no-argument, non-void instance
 *       methods are {@code getX}/{@code isX}/{@code hasX} (or {@code get()} of a holder), conversions ({@code toX}, {@code asX}),
 *       {@code tryX}, {@code …Async}, {@code …OrNull}, {@code …Now}, or start with a verb of
 *       {@link #VERBS};</li>
 *   <li><b>conversions</b>: no static {@code fromX(…)} (the name is {@code from}), no static
 *       {@code of(…)} whose first parameter is an asynchronous type;</li>
 *   <li><b>Kotlin facades</b>: no public class named {@code …Kt}.</li>
 * </ul>
 * {@link #ALLOWED} lists the exceptions, each with its reason.
 */
class NamingRulesTest {

    /** Exceptions, as {@code class#method}, each with the reason it is one. */
    static final Map<String, String> ALLOWED = Map.of(
            "dev.corobridge.pump.MessagePump#shutdown",
            "lifecycle: the call starts the shutdown (it is not a wait); the future is its report, as Netty's shutdownGracefully()",
            "dev.corobridge.pump.MessagePump#shutdownNow",
            "lifecycle, as ExecutorService.shutdownNow(); the future is the report",
            "dev.corobridge.pump.MessagePump#termination",
            "lifecycle: the termination future itself, as Netty's terminationFuture()",
            "dev.corobridge.ring.RingPool#shutdown",
            "lifecycle: the call starts the shutdown; the future is its termination",
            "dev.corobridge.ring.RingPool#leastLoaded",
            "a placement choice among the rings, as next() is, not a property",
            "dev.corobridge.main.CorobridgeMainDispatcherFactory#hintOnError",
            "implements kotlinx's MainDispatcherFactory (its name is kotlinx's)");

    /** First words of no-argument methods that are actions or picks, not properties. */
    static final Set<String> VERBS = Set.of("cancel", "close", "shutdown", "detach", "signal", "subscribe", "next",
            "run", "advance", "join", "abort", "restore", "set", "hash", "unlock", "downgrade");

    private static final Set<String> HANDLES = Set.of("dev.corobridge.bridge.Awaitable", "dev.corobridge.bridge.Task",
            "dev.corobridge.ring.RingOp", "java.util.concurrent.CompletionStage", "java.util.concurrent.CompletableFuture");
    private static final Set<String> ASYNC_SOURCES = Set.of("kotlinx.coroutines.flow.Flow", "kotlinx.coroutines.Deferred",
            "java.util.concurrent.CompletionStage", "org.reactivestreams.Publisher", "dev.corobridge.bridge.Awaitable",
            "dev.corobridge.bridge.Task");
    private static final Set<String> TASK_BUILDERS = Set.of("dev.corobridge.bridge.Task", "dev.corobridge.bridge.TaskScope");
    private static final Set<String> MODIFIERS = Set.of("public", "protected", "static", "final", "abstract", "default",
            "synchronized", "native", "suspend", "inline");
    private static final Pattern CLASS = Pattern.compile(
            "^(?:public|protected) (.*?)(class|interface|record|enum|@interface) ([\\w.$]+).*$");
    private static final Pattern ANNOTATIONS = Pattern.compile("^(@[\\w.]+(\\([^)]*\\))?\\s*)+");
    private static final Pattern VALUE_NAME = Pattern.compile(".*(Config|Builder|Exception|Error|Report|Metrics)$");

    @Test
    void everyPublishedNameKeepsTheRules() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent().getParent();
        List<Path> dumps;
        try (Stream<Path> s = Files.list(root)) {
            dumps = s.map(m -> m.resolve("api")).filter(Files::isDirectory)
                    .flatMap(d -> {
                        try (Stream<Path> f = Files.list(d)) {
                            return f.filter(p -> p.toString().endsWith(".api")).toList().stream();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .sorted().toList();
        }
        assertTrue(dumps.size() >= 6, "expected the published modules' API dumps under " + root + ", found " + dumps);
        List<String> problems = new ArrayList<>();
        Set<String> allowedUsed = new LinkedHashSet<>();
        for (Path dump : dumps) {
            problems.addAll(check(root.relativize(dump).toString(), Files.readAllLines(dump), allowedUsed));
        }
        for (String entry : ALLOWED.keySet()) {
            if (!allowedUsed.contains(entry)) {
                problems.add("allow-list entry " + entry + " matches no public method any more: remove it");
            }
        }
        if (!problems.isEmpty()) {
            fail(problems.size() + " public name(s) break the naming rules of CONTRIBUTING.md (\"Naming\"):\n  "
                    + String.join("\n  ", problems));
        }
    }

    /** Each rule fails on a name that breaks it, and passes its good twin. */
    @Test
    void eachRuleCatchesItsBreach() {
        List<String> dump = List.of(
                "public final class dev.x.Event {",
                "  public dev.corobridge.bridge.Awaitable<java.lang.Void> whenSet()",
                "  public dev.corobridge.bridge.Awaitable<java.lang.Void> lock()",
                "  public dev.corobridge.bridge.Awaitable<java.lang.Void> lockAsync()",
                "  public int count()",
                "  public int getCount()",
                "  public static <T> dev.x.Event fromDeferred(kotlinx.coroutines.Deferred<? extends T>)",
                "  public static <T> dev.x.Event of(kotlinx.coroutines.flow.Flow<? extends T>)",
                "  public static <T> dev.x.Event from(kotlinx.coroutines.flow.Flow<? extends T>)",
                "}",
                "public final record dev.x.Snapshot {",
                "  public long getCount()",
                "  public long count()",
                "}",
                "public final class dev.x.EventKt {",
                "  public static final suspend java.lang.Object awaitSoon(dev.x.Event, kotlin.coroutines.Continuation<? super kotlin.Unit>)",
                "  public static final suspend java.lang.Object await(dev.x.Event, kotlin.coroutines.Continuation<? super kotlin.Unit>)",
                "}");
        List<String> problems = check("x.api", dump, new LinkedHashSet<>());
        assertEquals(List.of(
                "dev.x.Event#whenSet (x.api): a wait is never whenX: name it xAsync()",
                "dev.x.Event#lock (x.api): returns dev.corobridge.bridge.Awaitable, so it starts a wait: name it lockAsync()",
                "dev.x.Event#count (x.api): a getter of a live type is getCount() (or isX/hasX); an action starts with a verb",
                "dev.x.Event#fromDeferred (x.api): a static conversion is from(source), overloaded by source",
                "dev.x.Event#of (x.api): a static conversion is from(source), not of(source)",
                "dev.x.Snapshot#getCount (x.api): a value type's accessor is record-style: count()",
                "dev.x.EventKt (x.api): a Kotlin facade is named with @file:JvmName as a plural noun, never ...Kt",
                "dev.x.EventKt#awaitSoon (x.api): a Kotlin await is await(), awaitIo() or awaitUntil()"), problems);
    }

    static List<String> check(String file, List<String> lines, Set<String> allowedUsed) {
        List<String> problems = new ArrayList<>();
        String cls = null;
        boolean value = false;
        for (String line : lines) {
            if (line.startsWith("#") || line.isBlank() || line.trim().equals("}")) {
                continue;
            }
            if (!line.startsWith("  ")) {
                Matcher m = CLASS.matcher(line);
                assertTrue(m.matches(), file + ": cannot read the class line " + line);
                cls = m.group(3);
                String kind = m.group(2);
                String simple = cls.substring(Math.max(cls.lastIndexOf('.'), cls.lastIndexOf('$')) + 1);
                value = !kind.equals("class") && !kind.equals("interface") || m.group(1).contains("sealed")
                        || VALUE_NAME.matcher(simple).matches();
                if (simple.endsWith("Kt")) {
                    problems.add(cls + " (" + file + "): a Kotlin facade is named with @file:JvmName as a plural noun, never ...Kt");
                }
                continue;
            }
            Member m = Member.parse(line.trim());
            if (m == null) {
                continue; // a field
            }
            String who = cls + "#" + m.name;
            String problem = problem(m, cls, value);
            if (problem == null) {
                continue;
            }
            if (ALLOWED.containsKey(who)) {
                allowedUsed.add(who);
                continue;
            }
            String text = who + " (" + file + "): " + problem;
            if (!problems.contains(text)) {
                problems.add(text);
            }
        }
        return problems;
    }

    private static String problem(Member m, String cls, boolean value) {
        boolean handle = HANDLES.contains(m.rawReturn);
        if (handle && m.name.matches("when[A-Z].*")) {
            return "a wait is never whenX: name it xAsync()";
        }
        if (handle && !m.isStatic && !value && !TASK_BUILDERS.contains(cls) && !m.name.matches("(to|as)[A-Z].*")
                && !m.name.endsWith("Async")) {
            return "returns " + m.rawReturn + ", so it starts a wait: name it " + m.name + "Async()";
        }
        if (m.isStatic && m.name.matches("from[A-Z].*")) {
            return "a static conversion is from(source), overloaded by source";
        }
        if (m.isStatic && m.name.equals("of") && !m.params.isEmpty() && ASYNC_SOURCES.contains(raw(m.params.get(0)))) {
            return "a static conversion is from(source), not of(source)";
        }
        if (m.isSuspend && m.name.startsWith("await") && !Set.of("await", "awaitIo", "awaitUntil").contains(m.name)) {
            return "a Kotlin await is await(), awaitIo() or awaitUntil()";
        }
        if (!m.isStatic && m.params.isEmpty() && !m.rawReturn.isEmpty() && !m.rawReturn.equals("void")) {
            if (value) {
                if (m.name.matches("get[A-Z].*")) {
                    return "a value type's accessor is record-style: "
                            + Character.toLowerCase(m.name.charAt(3)) + m.name.substring(4) + "()";
                }
            } else {
                String first = m.name.replaceAll("^([a-z]+).*$", "$1");
                boolean ok = m.name.matches("(get|is|has|to|as|try)([A-Z].*)?") || VERBS.contains(first)
                        || m.name.endsWith("OrNull") || m.name.endsWith("Now") || m.name.endsWith("Async");
                if (!ok) {
                    return "a getter of a live type is get" + Character.toUpperCase(m.name.charAt(0)) + m.name.substring(1)
                            + "() (or isX/hasX); an action starts with a verb";
                }
            }
        }
        return null;
    }

    private static String raw(String type) {
        int lt = type.indexOf('<');
        return (lt < 0 ? type : type.substring(0, lt)).replace("...", "").trim();
    }

    /** One method line of a dump: modifiers, type parameters, return type, name, parameters. */
    record Member(String name, String rawReturn, List<String> params, boolean isStatic, boolean isSuspend) {

        static Member parse(String line) {
            String s = ANNOTATIONS.matcher(line).replaceFirst("");
            int paren = s.indexOf('(');
            if (paren < 0) {
                return null;
            }
            String head = s.substring(0, paren);
            String name = head.substring(head.lastIndexOf(' ') + 1);
            String rest = head.substring(0, Math.max(0, head.lastIndexOf(' '))).trim();
            Set<String> mods = new LinkedHashSet<>();
            while (true) {
                int sp = rest.indexOf(' ');
                String word = sp < 0 ? rest : rest.substring(0, sp);
                if (!MODIFIERS.contains(word)) {
                    break;
                }
                mods.add(word);
                rest = sp < 0 ? "" : rest.substring(sp + 1).trim();
            }
            if (rest.startsWith("<")) {
                int depth = 0;
                for (int i = 0; i < rest.length(); i++) {
                    depth += rest.charAt(i) == '<' ? 1 : rest.charAt(i) == '>' ? -1 : 0;
                    if (depth == 0) {
                        rest = rest.substring(i + 1).trim();
                        break;
                    }
                }
            }
            String params = s.substring(paren + 1, s.lastIndexOf(')'));
            List<String> list = new ArrayList<>();
            int depth = 0;
            int start = 0;
            for (int i = 0; i < params.length(); i++) {
                char c = params.charAt(i);
                depth += c == '<' ? 1 : c == '>' ? -1 : 0;
                if (c == ',' && depth == 0) {
                    list.add(params.substring(start, i).trim());
                    start = i + 1;
                }
            }
            if (!params.isBlank()) {
                list.add(params.substring(start).trim());
            }
            return new Member(name, raw(rest), list, mods.contains("static"), mods.contains("suspend"));
        }
    }
}
