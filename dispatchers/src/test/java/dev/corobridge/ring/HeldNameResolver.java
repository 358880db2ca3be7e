package dev.corobridge.ring;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A test resolver (installed for the test JVM through {@code META-INF/services}): the name
 * {@value #HELD_HOST} resolves to the loopback address only once a test releases it, as a slow DNS
 * answer would; every other name goes to the JDK's resolver.
 */
public final class HeldNameResolver extends InetAddressResolverProvider {

    static final String HELD_HOST = "held.corobridge.test";
    static volatile CountDownLatch entered = new CountDownLatch(1);
    private static volatile CountDownLatch released = new CountDownLatch(0);

    /** The next resolutions of the held name wait until {@link #release()}. */
    static void hold() {
        entered = new CountDownLatch(1);
        released = new CountDownLatch(1);
    }

    static void release() {
        released.countDown();
    }

    @Override
    public InetAddressResolver get(Configuration configuration) {
        InetAddressResolver builtin = configuration.builtinResolver();
        return new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) throws UnknownHostException {
                if (!HELD_HOST.equals(host)) {
                    return builtin.lookupByName(host, policy);
                }
                entered.countDown();
                try {
                    released.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Stream.of(InetAddress.getByAddress(HELD_HOST, new byte[] {127, 0, 0, 1}));
            }

            @Override
            public String lookupByAddress(byte[] address) throws UnknownHostException {
                return builtin.lookupByAddress(address);
            }
        };
    }

    @Override
    public String name() {
        return "corobridge-test-held-name";
    }
}
