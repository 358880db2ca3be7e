/**
 * The demo service's HTTP/1.1 transport below Spring, in one place: what a hostile or broken client
 * meets before a request reaches a route, and how the service's connections end at shutdown.
 *
 * <ul>
 * <li>{@link dev.corobridge.demo.web.transport.HttpTransport} puts one
 *     {@link dev.corobridge.demo.web.transport.ExchangeHandler} on every connection: it follows the
 *     connection's exchanges (requests read, answer begun, answer written) and, on that one state,
 *     refuses undecodable requests, enforces the header and body deadlines, turns the empty
 *     refusals of the layers below Spring into problem JSON, and reports the connection to the
 *     {@link dev.corobridge.demo.web.transport.ConnectionTracker}; it asks the codec's decoder for the
 *     bytes it holds ({@link dev.corobridge.demo.web.transport.DecoderBacklog}) to time a head read
 *     together with the request before it.</li>
 * <li>{@link dev.corobridge.demo.web.transport.ProblemJson} writes every problem document, for this
 *     layer and for Spring's error handler; {@link dev.corobridge.demo.web.transport.LingeringClose}
 *     closes a connection after a last answer without losing it to a reset.</li>
 * <li>{@link dev.corobridge.demo.web.transport.ClientFaultSummary} counts client faults in one
 *     rate-limited WARN line; {@link dev.corobridge.demo.web.transport.ClientAborts} recognises, for
 *     the error handler, the exchanges a client ended.</li>
 * <li>At shutdown, {@link dev.corobridge.demo.web.transport.ServiceState} turns the service off,
 *     {@link dev.corobridge.demo.web.transport.ShutdownDrain} drains the connections the tracker
 *     reports, and {@link dev.corobridge.demo.web.transport.ListeningSocket} stops the listening
 *     socket accepting before it closes.</li>
 * </ul>
 *
 * <p>What Spring sees stays in {@code dev.corobridge.demo.web}: the routes, the request guard (body
 * limit, codings, UTF-8) and the error handler that classifies errors into problems.
 */
package dev.corobridge.demo.web.transport;
