package main

import (
	"encoding/json"
	"math"
	"strconv"
)

// round2 is Python's round(x, 2): the correctly rounded decimal of the exact binary value, ties to
// even. math.Round(x*100)/100 differs on values such as 1.005 because x*100 is itself rounded.
func round2(x float64) float64 {
	var buf [32]byte
	r, _ := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], x, 'f', 2, 64)), 64)
	return r
}

// appendFloat writes a float the way Python's json module does ("1.0", not "1") so that clients
// written against the published Python-era service see the same token shapes.
func appendFloat(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	for _, c := range b[start:] {
		if c == '.' {
			return b
		}
	}
	return append(b, ".0"...)
}

// appendString writes s as a JSON string; plain ASCII (every catalog string) takes the fast path.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
