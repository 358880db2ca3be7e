@file:JvmName("Settings")

package dev.corobridge.dispatchers.internal

import java.time.Duration
import java.util.Objects

// Internal API: not for use outside corobridge; may change without notice.
//
// The argument checks of the dispatchers' configuration builders (PumpConfig, RingPoolConfig), in
// one place so that every setting is refused the same way: at once, in the setter, with an
// IllegalArgumentException that names the setting, the allowed range and the value given (a null
// is a NullPointerException naming the setting). Each returns the value it accepts, so a setter
// reads `this.x = Settings.intIn("x", n, 1, 64)`. `internal` (JVM-public, so the builders in both
// packages call it; left out of the API dump): stateless, safe from any thread.

/** [value] if it is in [min]..[max]. */
internal fun intIn(setting: String, value: Int, min: Int, max: Int): Int {
    require(value in min..max) { "$setting must be in $min..$max, was $value" }
    return value
}

/** [value] if it is a power of two in [min]..[max]. */
internal fun powerOfTwoIn(setting: String, value: Int, min: Int, max: Int): Int {
    require(value in min..max && Integer.bitCount(value) == 1) {
        "$setting must be a power of two in $min..$max, was $value"
    }
    return value
}

/** [value] if it is not negative and at most [max]. */
internal fun durationIn(setting: String, value: Duration?, max: Duration): Duration {
    Objects.requireNonNull(value, setting)
    require(!value!!.isNegative && value <= max) { "$setting must be in 0..$max, was $value" }
    return value
}

/** [value] if it is not negative. */
internal fun notNegative(setting: String, value: Duration?): Duration {
    Objects.requireNonNull(value, setting)
    require(!value!!.isNegative) { "$setting must not be negative, was $value" }
    return value
}

/**
 * [value] if it is not blank (as `java.lang.String.isBlank`: not only `Character.isWhitespace`
 * code points); [what] names it in the message ("pump name").
 */
internal fun notBlank(setting: String, what: String, value: String?): String {
    Objects.requireNonNull(value, setting)
    require(!value!!.codePoints().allMatch(Character::isWhitespace)) { "$what must not be blank" }
    return value
}
