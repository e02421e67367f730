// Package testwait is what a test uses to wait for something that must
// happen, without a stopwatch: a wait fails only after [Limit], a bound that
// only a real hang misses (a busy machine running the race detector makes a
// test slower, never wrong), and its failure carries the goroutine dump that
// shows where the hang is.
//
// Whether a piece of work is fast belongs to benchmarks; whether it grows
// linearly to a count of steps or allocations at two sizes; whether it stops
// promptly to the order of events (it returned after the cancellation and
// before its work could have finished). internal/archtest keeps elapsed-time
// thresholds under 30 seconds out of the test files.
package testwait

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Limit is how long a wait lasts before it is called a hang.
const Limit = 2 * time.Minute

// Recv returns the next value of ch, or fails the test with a goroutine
// dump when none comes within [Limit]. what says what was awaited.
func Recv[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		tb.Fatalf("hang: %s: nothing after %v\n%s", what, Limit, Goroutines())
	}
	var zero T
	return zero
}

// Until calls cond until it returns true, and fails the test with a
// goroutine dump when it has not within [Limit]. It yields between calls.
func Until(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(Limit)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("hang: %s: not so after %v\n%s", what, Limit, Goroutines())
		}
		time.Sleep(time.Millisecond)
	}
}

// Goroutines returns the stacks of every goroutine of the process.
func Goroutines() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// Wait waits for a started command and returns its error from cmd.Wait.
// When it has not ended within [Limit] it is sent SIGQUIT (a Go program then
// writes its goroutines to its standard error), then killed, and the test
// fails.
func Wait(tb testing.TB, cmd *exec.Cmd, what string) error {
	tb.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
	}
	cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-done:
	case <-time.After(10 * time.Second): // not a stopwatch: the grace of a process already called hung
		cmd.Process.Kill()
		<-done
	}
	tb.Fatalf("hang: %s: still running after %v (sent SIGQUIT; its standard error holds its goroutines)", what, Limit)
	return nil
}

// ExitCode is the exit code of a command's error from Wait: 0 for nil, -1
// for a signal's default action; any other error fails the test.
func ExitCode(tb testing.TB, err error) int {
	tb.Helper()
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	tb.Fatal(err)
	return 0
}

// ProcIO returns the bytes the process has read (rchar of /proc/self/io:
// every read system call, from files, pipes and sockets) so that a test can
// check that work did not read what it must not; ok is false where the
// kernel does not say.
func ProcIO() (read int64, ok bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, found := strings.CutPrefix(line, "rchar: "); found {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// ReadingFD reports whether a thread of process pid is blocked in a read
// system call on descriptor fd, as /proc/PID/task/TID/syscall shows it;
// known is false where the kernel does not say (no /proc, or not allowed
// to look).
func ReadingFD(pid, fd int) (reading, known bool) {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return false, false
	}
	want := "0 0x" + strconv.FormatInt(int64(fd), 16) + " " // read(2) is 0 on amd64
	if runtime.GOARCH != "amd64" {
		want = "63 0x" + strconv.FormatInt(int64(fd), 16) + " " // and 63 on arm64 and riscv64
	}
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/syscall")
		if err != nil {
			return false, false
		}
		if strings.HasPrefix(string(b), want) {
			return true, true
		}
	}
	return false, true
}
