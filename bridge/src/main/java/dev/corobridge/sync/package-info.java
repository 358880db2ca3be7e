/**
 * Coordination primitives for Java and Kotlin that make waiters <em>wait without blocking a
 * thread</em>, so they are safe on the pump: {@link dev.corobridge.sync.AsyncMutex},
 * {@link dev.corobridge.sync.AsyncSemaphore} (kotlinx's {@code Mutex} and {@code Semaphore},
 * wrapped), {@link dev.corobridge.sync.AsyncChannel} (kotlinx's {@code Channel} semantics on an
 * implementation of its own, so that a waiting operation is one object), and
 * {@link dev.corobridge.sync.AsyncEvent}, {@link dev.corobridge.sync.AsyncLatch},
 * {@link dev.corobridge.sync.WaitGroup}, {@link dev.corobridge.sync.AsyncCondition},
 * {@link dev.corobridge.sync.AsyncReadWriteMutex} (ours: kotlinx has none). To wait for several
 * tasks use {@code Task.allOf} / {@code Task.anyOf}.
 *
 * <h2>Two faces of each primitive</h2>
 * <ul>
 *   <li><b>Java</b>: every operation that may wait returns a fresh
 *       {@link dev.corobridge.bridge.Awaitable} — the waiter's own handle — and is named for it:
 *       {@code sendAsync}, {@code receiveAsync}, {@code lockAsync}, {@code acquireAsync},
 *       {@code readLockAsync} / {@code writeLockAsync} (completed with a lock handle to close), and
 *       {@code awaitAsync()} for waiting for a state (an event set, a latch open, a wait group
 *       done, a condition signalled; {@code awaitUntilAsync(...)} for a predicate): the Kotlin
 *       name plus {@code Async}. {@code join()} it on a
 *       virtual thread (it parks cheaply; on the pump it throws instead of freezing the loop),
 *       register {@code onComplete}, or compose it with {@code Task.from(wait).thenOn(context, ...)}.</li>
 *   <li><b>Kotlin</b>: {@code suspend} functions with the plain verbs ({@code mutex.withLock {}},
 *       {@code channel.send(x)}, {@code channel.receive()}, {@code latch.await()}, ...), resuming on
 *       the caller's dispatcher — a waiter on the pump resumes on the pump. Prefer them to
 *       {@code xAsync().await()}: a cancelled coroutine withdraws its suspended operation, whereas
 *       the generic {@code Awaitable.await()} leaves the handle's operation running, which for a
 *       wait that takes something (a lock, an element, a permit) would take it for nobody.</li>
 * </ul>
 *
 * <h2>Cancellation never steals</h2>
 * Every wait is cancellable — the Java awaitable's {@code cancel()}, or cancelling the Kotlin
 * coroutine — and a cancelled waiter never takes a permit, a signal or an element from another:
 * <ul>
 *   <li><b>Permits</b> (mutex, read-write mutex, semaphore): cancelling decides at once; a permit
 *       granted in that same instant is passed on to the next waiter.</li>
 *   <li><b>Broadcasts</b> (event, latch, wait group): cancelling withdraws that waiter only;
 *       a wake-up reaches every other waiter.</li>
 *   <li><b>Hand-overs</b> (channel elements, condition signals): cancelling withdraws the wait if
 *       nothing was handed to it yet; otherwise {@code cancel()} returns {@code false} and the wait
 *       completes normally with what it got, because an element or a signal that changed hands
 *       cannot be given back without reordering ({@code awaitUntilAsync} uses the signal to evaluate its
 *       predicate once more, and ends cancelled, holding the mutex, only if it is still false). A
 *       Kotlin coroutine cancelled in that instant returns normally and meets the cancellation at
 *       its next suspension point; a {@code receiveAsFlow()} collection passes the element to its
 *       collector and then stops.</li>
 * </ul>
 */
package dev.corobridge.sync;
