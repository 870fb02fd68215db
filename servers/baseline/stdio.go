package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
)

// serveStdio is the stdio transport: one JSON-RPC message per line on in, one reply per line on out.
// Every message is handled on its own goroutine, as an HTTP request would be: a client keeps several
// calls in flight and matches the replies, which leave in the order they finish, by id. One writer
// goroutine owns out. At EOF it waits for the calls in flight and returns once their replies are
// written; when ctx ends (SIGTERM) it returns at once.
func (s *server) serveStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	replies := make(chan *buffers, 256)
	written := make(chan error, 1)
	go func() { written <- writeLines(out, replies) }()

	var calls sync.WaitGroup
	read := make(chan error, 1)
	go func() { read <- s.readLines(ctx, in, &calls, replies) }()
	select {
	case <-ctx.Done():
		return nil
	case err := <-read:
		calls.Wait()
		close(replies)
		return errors.Join(err, <-written)
	}
}

// readLines reads messages until EOF and starts a goroutine for each. A line over 1 MiB (the HTTP
// transport's body limit) is skipped and answered with -32600.
func (s *server) readLines(ctx context.Context, in io.Reader, calls *sync.WaitGroup, replies chan<- *buffers) error {
	r := bufio.NewReaderSize(in, maxBody)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			b := getBuffers()
			b.out = appendError(b.out, nil, codeInvalidRequest, "message exceeds 1 MiB")
			replies <- b
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			b := getBuffers()
			b.body.Write(line) // line points into r's buffer, which the next read overwrites
			b.notify = stdioQueue(replies)
			calls.Go(func() {
				reply, _ := s.handle(ctx, b.body.Bytes(), b)
				if reply == nil { // a notification
					putBuffers(b)
					return
				}
				b.out = reply
				replies <- b
			})
		}
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// stdioQueue sends a notification as one more line through the writer, queued behind what the call
// already sent, so it leaves before the call's reply.
type stdioQueue chan<- *buffers

func (q stdioQueue) send(msg []byte) error {
	b := getBuffers()
	b.out = append(b.out, msg...)
	q <- b
	return nil
}

// writeLines writes each reply as one line, flushing whenever no other reply is waiting. After a
// failed write (the client went away) it keeps draining replies so no handler blocks.
func writeLines(out io.Writer, replies <-chan *buffers) error {
	w := bufio.NewWriterSize(out, 64<<10)
	var err error
	for b := range replies {
		if err == nil {
			w.Write(b.out)
			w.WriteByte('\n')
			if len(replies) == 0 {
				err = w.Flush()
			}
		}
		putBuffers(b)
	}
	if err == nil {
		err = w.Flush()
	}
	return err
}
