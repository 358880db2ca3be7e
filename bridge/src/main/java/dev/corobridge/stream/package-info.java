/**
 * Streams between Java and Kotlin. Kotlin's {@code Flow} is the stream type; this package adds
 * only what Java cannot do with it directly. (A Kotlin {@code Sequence} needs nothing: its
 * {@code iterator()} is a lazy {@code java.util.Iterator}.)
 *
 * <ul>
 *   <li><b>Flows</b> ({@link dev.corobridge.stream.Flows}): Java code produces a Kotlin
 *       {@code Flow} through a {@link dev.corobridge.stream.FlowEmitter} backed by a channel. (A
 *       {@code Flow} as a Reactor {@code Flux} or Reactive Streams {@code Publisher}, with
 *       back-pressure: the corobridge-reactor module.)</li>
 *   <li><b>Event streams</b> ({@link dev.corobridge.stream.EventSource},
 *       {@link dev.corobridge.stream.EventStream}, {@link dev.corobridge.stream.EventStreams}):
 *       a multicast source, and a subscriber's pull face whose {@code nextAsync()} returns an
 *       awaitable {@link dev.corobridge.stream.Next} — a value, the end or a failure — so
 *       cancellation and the end are normal outcomes delivered like values. A Java loop reads
 *       {@code for (var e = events.nextAsync().join(); e.hasValue(); e = events.nextAsync().join())};
 *       in Kotlin an event stream is a plain {@code Flow} collection ({@code source.asFlow()},
 *       {@code stream.consumeAsFlow()}) or a suspending {@code stream.next()}. Java reads a Kotlin
 *       {@code Flow} the same way through {@link dev.corobridge.stream.EventStreams#from}. Unsubscribing happens when the
 *       consumer stops (closing the stream; the Kotlin collection ending), with no token to keep.</li>
 * </ul>
 */
package dev.corobridge.stream;
