// node-agent: what the orchestrator sees of a swarm node's CPUs, since it cannot read another host's /proc
// (benchmark/mcpbench/runtime/swarm_nodes.py runs one per node). On stdout:
//
//	H,<boot id>,<CPUs>                          once: the machine (nodes sharing a kernel share a boot id)
//	C,<epoch ms>,<cpu>,<busy ns>,<steal ns>     every 250 ms per CPU: /proc/stat's counters (busy = user,
//	                                            nice, system, irq, softirq: what psutil's busy time is)
//	R,<n>,<cpu>,<seconds>                        on the n-th SIGUSR1, the speed probe on each CPU in turn,
//	R,<n>,done                                   then this line
//
// It also accepts TCP connections on agentPort and closes them at once: what `load-driver rtt` times from
// another node (a connect is one round trip: SYN, SYN-ACK) over the same network path the load takes.
//
// The speed probe is the local host's (host/speed_probe.py): sha256 over 4 x 32 MiB, the fastest of 5
// repeats, on a thread pinned to the CPU. In a container /proc/stat is the host's, not the container's.
package main

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const (
	probeBytes   = 32 << 20
	probePasses  = 4
	probeRepeats = 5
	statPeriod   = 250 * time.Millisecond
	userHz       = 100 // /proc/stat's unit: USER_HZ, 100 on every Linux architecture
	agentPort    = 7070
	rttReady     = 20 * time.Second
	rttMeasure   = 20 * time.Second
)

// rtt: `load-driver rtt --target HOST:PORT --count N` prints RTT,<median ms>,<min ms>,<max ms>,<connects> of up
// to N TCP connects (each one round trip) to a node agent, 20 ms apart. It first waits up to rttReady for the
// target to accept one connect: a freshly deployed overlay network's names and routes take a moment, and a
// connect into that moment would time the network's set-up, not its round trip. The whole command ends within
// rttReady+rttMeasure, so the orchestrator's wait always hears why.
func rtt(args []string) int {
	fs := flag.NewFlagSet("rtt", flag.ContinueOnError)
	target := fs.String("target", "", "a node agent, host:port")
	count := fs.Int("count", 50, "connects")
	if err := fs.Parse(args); err != nil || *target == "" || *count < 1 {
		fmt.Fprintln(os.Stderr, "usage: load-driver rtt --target HOST:PORT [--count N]")
		return exitUsage
	}
	ready := time.Now().Add(rttReady)
	for {
		conn, err := net.DialTimeout("tcp", *target, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(ready) {
			fmt.Fprintf(os.Stderr, "%s did not accept a connect within %s: %v\n", *target, rttReady, err)
			return exitFailed
		}
		time.Sleep(200 * time.Millisecond)
	}
	var times []float64
	end := time.Now().Add(rttMeasure)
	for i := 0; i < *count && time.Now().Before(end); i++ {
		started := time.Now()
		conn, err := net.DialTimeout("tcp", *target, 2*time.Second)
		if err != nil {
			fmt.Fprintf(os.Stderr, "connect %s: %v\n", *target, err)
			continue
		}
		times = append(times, float64(time.Since(started).Microseconds())/1000)
		conn.Close()
		time.Sleep(20 * time.Millisecond)
	}
	if len(times) == 0 {
		return exitFailed
	}
	sort.Float64s(times)
	fmt.Printf("RTT,%.3f,%.3f,%.3f,%d\n", times[len(times)/2], times[0], times[len(times)-1], len(times))
	return exitOK
}

func nodeAgent() int {
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "H,%s,%d\n", strings.TrimSpace(string(boot)), runtime.NumCPU())
	out.Flush()
	probes := make(chan os.Signal, 4)
	signal.Notify(probes, syscall.SIGUSR1)
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	if listener, err := net.Listen("tcp", fmt.Sprintf(":%d", agentPort)); err == nil {
		go func() {
			for {
				conn, err := listener.Accept()
				if err != nil {
					return
				}
				conn.Close()
			}
		}()
	}
	ticker := time.NewTicker(statPeriod)
	defer ticker.Stop()
	buffer := make([]byte, probeBytes)
	for i := range buffer {
		buffer[i] = byte(i)
	}
	for n := 1; ; {
		select {
		case <-stop:
			return exitOK
		case <-probes:
			for _, cpu := range onlineCPUs() {
				if seconds, ok := probe(cpu, buffer); ok {
					fmt.Fprintf(out, "R,%d,%d,%.6f\n", n, cpu, seconds)
				}
			}
			fmt.Fprintf(out, "R,%d,done\n", n)
			n++
		case now := <-ticker.C:
			writeStat(out, now)
		}
		out.Flush()
	}
}

func onlineCPUs() []int {
	cpus := []int{}
	for _, line := range statLines() {
		cpus = append(cpus, line.cpu)
	}
	return cpus
}

type statLine struct {
	cpu         int
	busy, steal int64 // ticks
}

func statLines() []statLine {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil
	}
	var lines []statLine
	for _, text := range strings.Split(string(data), "\n") {
		fields := strings.Fields(text)
		if len(fields) < 9 || !strings.HasPrefix(fields[0], "cpu") || fields[0] == "cpu" {
			continue
		}
		cpu, err := strconv.Atoi(fields[0][3:])
		if err != nil {
			continue
		}
		v := make([]int64, 8)
		for i := range v {
			v[i], _ = strconv.ParseInt(fields[i+1], 10, 64)
		}
		// user nice system idle iowait irq softirq steal
		lines = append(lines, statLine{cpu: cpu, busy: v[0] + v[1] + v[2] + v[5] + v[6], steal: v[7]})
	}
	return lines
}

func writeStat(out *bufio.Writer, now time.Time) {
	const nsPerTick = int64(time.Second) / userHz
	for _, line := range statLines() {
		fmt.Fprintf(out, "C,%d,%d,%d,%d\n", now.UnixMilli(), line.cpu, line.busy*nsPerTick, line.steal*nsPerTick)
	}
}

// probe times the fixed work on one CPU, on an OS thread pinned there (the thread is thrown away after).
func probe(cpu int, buffer []byte) (float64, bool) {
	result := make(chan float64, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the pinned thread exits with this goroutine
		var mask [16]uint64
		mask[cpu/64] |= 1 << (uint(cpu) % 64)
		_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask),
			uintptr(unsafe.Pointer(&mask)))
		if errno != 0 {
			result <- -1
			return
		}
		best := -1.0
		for r := 0; r < probeRepeats; r++ {
			started := time.Now()
			digest := sha256.New()
			for p := 0; p < probePasses; p++ {
				digest.Write(buffer)
			}
			digest.Sum(nil)
			if s := time.Since(started).Seconds(); best < 0 || s < best {
				best = s
			}
		}
		result <- best
	}()
	seconds := <-result
	return seconds, seconds >= 0
}
