package main

// Sorting stdout lines without decoding them: the reader goroutine only needs a reply's top-level id (to
// find the waiting call) and whether the line is a message from the server instead. A reply is decoded
// in full by the call that waited for it, in that VU's goroutine, so the one reader never becomes the
// bottleneck. Nested "id" keys (a product's id in a tool's structuredContent) are not the reply's id,
// hence a scan that tracks depth rather than a search for `"id":`.

type lineKind int

const (
	blankLine      lineKind = iota
	garbageLine             // not a JSON object, or an object that is no JSON-RPC message
	serverMessage           // has a method: a request or notification from the server
	replyLine               // has an id we may be waiting for
	unmatchedReply          // a reply whose id is null or no id of ours (not a non-negative integer)
)

func classify(line []byte) (id uint64, kind lineKind) {
	i := skipSpace(line, 0)
	if i == len(line) {
		return 0, blankLine
	}
	if line[i] != '{' {
		return 0, garbageLine
	}
	i++
	hasID, ownID, hasMethod := false, false, false
	for {
		i = skipSpace(line, i)
		if i < len(line) && line[i] == '}' && !hasID && !hasMethod {
			return 0, garbageLine // {} (or a trailing comma)
		}
		keyStart := i
		i = skipString(line, i)
		if i < 0 {
			return 0, garbageLine
		}
		keyEnd := i
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != ':' {
			return 0, garbageLine
		}
		i = skipSpace(line, i+1)
		valueStart := i
		i = skipValue(line, i)
		if i < 0 {
			return 0, garbageLine
		}
		switch string(line[keyStart+1 : keyEnd-1]) { // compared without a copy
		case "id":
			hasID = true
			id, ownID = parseID(line[valueStart:i])
		case "method":
			hasMethod = true
		}
		i = skipSpace(line, i)
		if i >= len(line) {
			return 0, garbageLine
		}
		if line[i] == '}' {
			break
		}
		if line[i] != ',' {
			return 0, garbageLine
		}
		i++
	}
	switch {
	case hasMethod:
		return 0, serverMessage
	case hasID && ownID:
		return id, replyLine
	case hasID:
		return 0, unmatchedReply
	}
	return 0, garbageLine
}

// parseID reads an id the driver sent: a non-negative integer, bare or (leniently) quoted.
func parseID(v []byte) (uint64, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	if len(v) == 0 || len(v) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i], or -1.
func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the JSON value starting at b[i], or -1. Not a validator: the waiting
// call decodes the line with encoding/json and calls anything malformed a bad response.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				if i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' &&
		b[i] != '\r' && b[i] != '\n' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}
