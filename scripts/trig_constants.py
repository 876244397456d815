#!/usr/bin/env python3
"""Derives the constants of include/quatstep/math/trig.hpp with exact integer/rational arithmetic.

pi comes from Machin's formula pi = 16 atan(1/5) - 4 atan(1/239), each arctangent summed as an
alternating series in fixed point with 400 bits (error < 2^-390). Every constant is then rounded
to nearest (ties to even) at the stated number of significant bits and printed as a C++ hex-float
literal, which the compiler reads exactly.

  python3 scripts/trig_constants.py
"""
from fractions import Fraction
from math import factorial, log2

FIXED_BITS = 400


def atan_inverse(n):
    """atan(1/n) * 2^FIXED_BITS, truncated, for integer n > 1."""
    one = 1 << FIXED_BITS
    term = one // n
    total, k, sign = 0, 1, 1
    while term:
        total += sign * (term // k)
        term //= n * n
        k += 2
        sign = -sign
    return total


PI = Fraction(16 * atan_inverse(5) - 4 * atan_inverse(239), 1 << FIXED_BITS)


def round_bits(x, bits):
    """x rounded to `bits` significant bits: (mantissa, exponent) with x ~ mantissa * 2^exponent."""
    assert x != 0
    sign = -1 if x < 0 else 1
    x = abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1  # now 2^e <= x < 2^(e+1)
    scaled = x / Fraction(2) ** (e - bits + 1)  # in [2^(bits-1), 2^bits)
    m, rest = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * rest
    if twice > scaled.denominator or (twice == scaled.denominator and m % 2):
        m += 1
    return sign * m, e - bits + 1


def value(me):
    m, e = me
    return Fraction(m) * Fraction(2) ** e


def hex_literal(me, float_suffix):
    """C++ hex float of m * 2^e, m normalised to [1, 2)."""
    m, e = me
    sign = "-" if m < 0 else ""
    m = abs(m)
    bits = m.bit_length()
    frac = m - (1 << (bits - 1))
    frac_bits = bits - 1
    pad = (-frac_bits) % 4
    digits = (frac_bits + pad) // 4
    frac_hex = format(frac << pad, "0%dx" % digits) if digits else ""
    frac_hex = frac_hex.rstrip("0")
    exponent = e + bits - 1
    body = "0x1" + ("." + frac_hex if frac_hex else "") + "p%+d" % exponent
    return sign + body + ("f" if float_suffix else "")


def split(x, piece_bits, pieces, last_bits):
    """x = P1 + P2 + ... : the first pieces with piece_bits significant bits, the last with last_bits."""
    parts, rest = [], x
    for i in range(pieces):
        p = round_bits(rest, piece_bits if i < pieces - 1 else last_bits)
        parts.append(p)
        rest -= value(p)
    return parts, rest


def emit(name, precision_bits, piece_bits, pieces, sin_degree, cos_degree, suffix):
    print("// %s: %d significant bits" % (name, precision_bits))
    print("two_over_pi = %s" % hex_literal(round_bits(2 / PI, precision_bits), suffix))
    parts, rest = split(PI / 2, piece_bits, pieces, precision_bits)
    for i, p in enumerate(parts):
        print("pio2_%d = %s   // %d bits" % (i + 1, hex_literal(p, suffix), abs(p[0]).bit_length()))
    print("// |pi/2 - sum| = %.3g = 2^%.1f" % (float(abs(rest)), log2(float(abs(rest)))))
    for n in range(3, sin_degree + 1, 2):
        sign = 1 if (n // 2) % 2 == 0 else -1
        print("sin c%d = %s   // %s1/%d!" % (n, hex_literal(round_bits(Fraction(sign, factorial(n)), precision_bits),
                                                               suffix), "+" if sign > 0 else "-", n))
    for n in range(4, cos_degree + 1, 2):
        sign = 1 if (n // 2) % 2 == 0 else -1
        print("cos c%d = %s   // %s1/%d!" % (n, hex_literal(round_bits(Fraction(sign, factorial(n)), precision_bits),
                                                               suffix), "+" if sign > 0 else "-", n))


if __name__ == "__main__":
    emit("double", 53, 33, 4, 17, 16, False)
    emit("float", 24, 12, 4, 9, 10, True)
