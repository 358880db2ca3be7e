package dev.corobridge.ring;

import java.util.Map;

/** Linux errno numbers and their names, for messages that say what the kernel said. */
final class Errno {

    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int EACCES = 13;
    static final int EEXIST = 17;
    static final int ENOTDIR = 20;
    static final int EISDIR = 21;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int ESPIPE = 29;
    static final int EROFS = 30;
    static final int EPIPE = 32;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ECONNRESET = 104;
    static final int ENOTCONN = 107;
    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;
    static final int ECANCELED = 125;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(1, "EPERM"), Map.entry(2, "ENOENT"), Map.entry(3, "ESRCH"), Map.entry(4, "EINTR"),
            Map.entry(5, "EIO"), Map.entry(6, "ENXIO"), Map.entry(7, "E2BIG"), Map.entry(9, "EBADF"),
            Map.entry(11, "EAGAIN"), Map.entry(12, "ENOMEM"), Map.entry(13, "EACCES"), Map.entry(14, "EFAULT"),
            Map.entry(16, "EBUSY"), Map.entry(17, "EEXIST"), Map.entry(18, "EXDEV"), Map.entry(19, "ENODEV"),
            Map.entry(20, "ENOTDIR"), Map.entry(21, "EISDIR"), Map.entry(22, "EINVAL"), Map.entry(23, "ENFILE"),
            Map.entry(24, "EMFILE"), Map.entry(25, "ENOTTY"), Map.entry(26, "ETXTBSY"), Map.entry(27, "EFBIG"),
            Map.entry(28, "ENOSPC"), Map.entry(29, "ESPIPE"), Map.entry(30, "EROFS"), Map.entry(32, "EPIPE"),
            Map.entry(36, "ENAMETOOLONG"), Map.entry(38, "ENOSYS"), Map.entry(39, "ENOTEMPTY"),
            Map.entry(40, "ELOOP"), Map.entry(75, "EOVERFLOW"), Map.entry(95, "EOPNOTSUPP"),
            Map.entry(98, "EADDRINUSE"), Map.entry(99, "EADDRNOTAVAIL"), Map.entry(101, "ENETUNREACH"),
            Map.entry(104, "ECONNRESET"), Map.entry(106, "EISCONN"), Map.entry(107, "ENOTCONN"),
            Map.entry(110, "ETIMEDOUT"), Map.entry(111, "ECONNREFUSED"), Map.entry(113, "EHOSTUNREACH"),
            Map.entry(122, "EDQUOT"), Map.entry(125, "ECANCELED"));

    private Errno() {
    }

    /** The symbolic name, e.g. {@code ENOENT}, or {@code errno N} for one we do not know. */
    static String name(int errno) {
        String n = NAMES.get(errno);
        return n != null ? n : "errno " + errno;
    }
}
