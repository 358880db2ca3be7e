/**
 * Generators and event streams for Java and Kotlin.
 *
 * <ul>
 *   <li><b>Generators</b> ({@link dev.corobridge.stream.Generators}): a Kotlin {@code sequence {}} or
 *       {@code iterator {}} is a lazy Java {@code Iterator} / {@code Stream}.</li>
 *   <li><b>Flows</b> ({@link dev.corobridge.stream.Flows}): Java code produces a Kotlin
 *       {@code Flow} through a {@link dev.corobridge.stream.FlowEmitter} backed by a channel. (A
 *       {@code Flow} as a Reactor {@code Flux} or Reactive Streams {@code Publisher}, with
 *       back-pressure: the corobridge-reactor module.)</li>
 *   <li><b>Event streams</b> ({@link dev.corobridge.stream.EventSource},
 *       {@link dev.corobridge.stream.EventStream}, {@link dev.corobridge.stream.EventStreams}):
 *       {@code next()} returns an awaitable {@link dev.corobridge.stream.Next} — a value, the end or
 *       a failure — so cancellation and the end are normal outcomes delivered like values. A Java loop
 *       reads {@code for (var e = events.next().await(); e.hasValue(); e = events.next().await())};
 *       in Kotlin an event stream is a plain {@code Flow} collection. Unsubscribing happens when the
 *       consumer stops (closing the stream; the Kotlin collection ending), with no token to keep.</li>
 * </ul>
 */
package dev.corobridge.stream;
