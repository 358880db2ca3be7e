package dev.corobridge.apidump;

/**
 * Java literals for the values of compile-time constant fields. They belong in a dump: javac and
 * kotlinc copy such a value into every caller, so changing it changes what compiled callers see
 * only when they are recompiled. Stateless; thread-safe.
 */
final class Constants {

    private Constants() {
    }

    /**
     * The literal for a ConstantValue attribute's value: the JVM stores boolean, byte, char and
     * short constants as ints, so the field descriptor says how to write them.
     */
    static String literal(String descriptor, Object value) {
        return switch (descriptor) {
            case "Z" -> ((Integer) value) != 0 ? "true" : "false";
            case "C" -> "'" + escape((char) ((Integer) value).intValue(), '\'') + "'";
            case "J" -> value + "L";
            case "F" -> floatLiteral((Float) value);
            case "D" -> doubleLiteral((Double) value);
            case "Ljava/lang/String;" -> string((String) value);
            default -> String.valueOf(value); // int, short, byte
        };
    }

    private static String floatLiteral(float value) {
        if (Float.isNaN(value)) {
            return "0.0f / 0.0f";
        }
        if (Float.isInfinite(value)) {
            return value > 0 ? "1.0f / 0.0f" : "-1.0f / 0.0f";
        }
        return value + "f";
    }

    private static String doubleLiteral(double value) {
        if (Double.isNaN(value)) {
            return "0.0 / 0.0";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "1.0 / 0.0" : "-1.0 / 0.0";
        }
        return Double.toString(value);
    }

    private static String string(String value) {
        StringBuilder literal = new StringBuilder("\"");
        for (int i = 0; i < value.length(); i++) {
            literal.append(escape(value.charAt(i), '"'));
        }
        return literal.append('"').toString();
    }

    /** One char inside a literal quoted with {@code quote}; anything not printable ASCII as \\uXXXX. */
    private static String escape(char c, char quote) {
        return switch (c) {
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            case '\b' -> "\\b";
            case '\f' -> "\\f";
            case '\\' -> "\\\\";
            default -> {
                if (c == quote) {
                    yield "\\" + c;
                }
                if (c < 0x20 || c > 0x7e) {
                    yield String.format(java.util.Locale.ROOT, "\\u%04x", (int) c);
                }
                yield String.valueOf(c);
            }
        };
    }
}
