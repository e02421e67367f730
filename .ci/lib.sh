# Shared by .ci/fast and .ci/run: the checks both lanes make before their
# tests. Sourced, not run.

STATICCHECK_VERSION=v0.8.2

# a ctx built with -race sleeps a second before it exits unless told not
# to: a second for every ctx a test runs
export GORACE="atexit_sleep_ms=0${GORACE:+ $GORACE}"

# step names a step, with the seconds since the lane started
step() { echo "== [$SECONDS s] $*"; }

static_checks() {
  step "gofmt"
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go'))
  if [ -n "$unformatted" ]; then
    echo "gofmt would change:"; echo "$unformatted"; return 1
  fi

  step "go mod tidy -diff"
  go mod tidy -diff

  step "no stopwatches in tests (an elapsed-time threshold under 30 s fails here)"
  go test -count=1 -run 'TestNoStopwatches|TestStopwatchChecker' ./internal/archtest

  step "the core builds without cgo (manifest, render, audit)"
  CGO_ENABLED=0 go build ./manifest ./render ./audit

  step "go vet"
  go vet ./...

  step "staticcheck $STATICCHECK_VERSION"
  local bin
  bin=$(go env GOBIN); [ -n "$bin" ] || bin="$(go env GOPATH)/bin"
  if ! "$bin/staticcheck" -version 2>/dev/null | grep -q "${STATICCHECK_VERSION#v}"; then
    go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
  fi
  "$bin/staticcheck" ./...
}
