package main

// Calls the client cancels part-way (a call's cancel_after_ms): what a client that timed out, or whose user
// pressed stop, does. In a session and over stdio the client says so with notifications/cancelled (MCP
// 2025-11-25, "Cancellation"); a stateless client has only the response stream to close, which the 2026-07-28
// revision makes the cancellation on HTTP. What the server did after it is read afterwards from the work list
// the call's work appends to (its work_list in Redis, one Unix-ms time per step), and, where the request stays
// open, whether a reply still came (the spec says a server should not send one).

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// cancelWatch is how long after a cancellation the client still listens for a reply, and how long after the
// last one the work lists are read: a call's remaining work must fit in it to be counted whole (the
// cancellation dimension's calls have under a second left).
var cancelWatch = 2 * time.Second // a variable for the tests only

// cancelReason is notifications/cancelled's reason.
const cancelReason = "the client gave up"

// cancelNotice is notifications/cancelled for request id, with the transport's delimiter (0: none).
func cancelNotice(id uint64, delimiter byte) []byte {
	b := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"reason":"`+cancelReason+`"}}`...)
	if delimiter != 0 {
		b = append(b, delimiter)
	}
	return b
}

// cancelled is one cancelled call whose work is read afterwards: its work list and when the client cancelled.
type cancelled struct {
	list string
	atMs int64
}

// cancellations is what the workload's cancelled calls left to count: every VU adds to it.
type cancellations struct {
	byNotice atomic.Int64 // cancelled with notifications/cancelled
	byClose  atomic.Int64 // cancelled by closing the response stream
	replies  atomic.Int64 // replies that came to a call after it was cancelled
	last     atomic.Int64 // the last cancellation, Unix ns
	watching sync.WaitGroup

	mu   sync.Mutex
	work []cancelled
}

// noted records a cancellation at `at` of a call whose work goes to list ("": not read).
func (c *cancellations) noted(at time.Time, byNotice bool, list string) {
	if byNotice {
		c.byNotice.Add(1)
	} else {
		c.byClose.Add(1)
	}
	c.last.Store(at.UnixNano())
	if list != "" {
		c.mu.Lock()
		c.work = append(c.work, cancelled{list: list, atMs: at.UnixMilli()})
		c.mu.Unlock()
	}
}

// workCounts is what the work lists said: steps written before and after each call's cancellation, and the
// calls that wrote any after it.
type workCounts struct {
	before, after, workedOn int64
}

// settle waits for the replies still listened for and for the last cancellation's watch, then reads every
// cancelled call's work list from the Redis at url (and deletes it, so a later run's calls of the same name
// start empty). An error says why the lists could not be read.
func (c *cancellations) settle(url string) (*workCounts, error) {
	c.watching.Wait()
	if wait := time.Until(time.Unix(0, c.last.Load()).Add(cancelWatch)); wait > 0 {
		time.Sleep(wait)
	}
	c.mu.Lock()
	work := c.work
	c.mu.Unlock()
	if len(work) == 0 {
		return nil, nil
	}
	if url == "" {
		return nil, fmt.Errorf("no --workload work_redis to read the work lists from")
	}
	options, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("work_redis %q: %v", url, err)
	}
	client := redis.NewClient(options)
	defer client.Close()
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	counts := &workCounts{}
	const batch = 500
	for from := 0; from < len(work); from += batch {
		part := work[from:min(from+batch, len(work))]
		pipe := client.Pipeline()
		lists := make([]*redis.StringSliceCmd, len(part))
		for i, w := range part {
			lists[i] = pipe.LRange(ctx, w.list, 0, -1)
			pipe.Del(ctx, w.list)
		}
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			return nil, fmt.Errorf("reading the work lists: %v", err)
		}
		for i, w := range part {
			after := int64(0)
			for _, step := range lists[i].Val() {
				if at, err := strconv.ParseInt(step, 10, 64); err == nil && at > w.atMs {
					after++
				} else {
					counts.before++
				}
			}
			counts.after += after
			if after > 0 {
				counts.workedOn++
			}
		}
	}
	return counts, nil
}

// countCancels puts what the cancelled calls left into the counts, once their watch is over (nothing when the
// workload cancels no call).
func (p *plan) countCancels(c *counts) {
	cancelling := false
	for _, call := range p.Calls {
		cancelling = cancelling || call.CancelAfterMs > 0
	}
	if !cancelling {
		return
	}
	work, err := p.cancels.settle(p.WorkRedis)
	byNotice, byClose, replies := p.cancels.byNotice.Load(), p.cancels.byClose.Load(), p.cancels.replies.Load()
	c.CancelledByNotice, c.CancelledByClose = &byNotice, &byClose
	if byNotice > 0 {
		c.CancelReplies = &replies
	}
	if err != nil {
		reason := err.Error()
		c.WorkUnread = &reason
	} else if work != nil {
		c.StepsBeforeCancel, c.StepsAfterCancel, c.CancelledWorkedOn = &work.before, &work.after, &work.workedOn
	}
}
