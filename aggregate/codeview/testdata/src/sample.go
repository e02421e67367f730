// Copyright header that the skeleton drops.

// Package sample shows Go views.
package sample

import (
	"context"
	"fmt"
)

// MaxItems bounds a list.
const MaxItems = 64

const (
	A = iota
	B
)

var (
	defaultName = "x"
	handler     = func() error {
		return nil
	}
)

// Client talks to a server.
type Client struct {
	URL  string // the endpoint
	hits int
}

// Sender sends.
type Sender interface {
	Send(ctx context.Context, msg string) error
}

type ID int

// New returns a client.
func New(url string) *Client {
	return &Client{URL: url}
}

// Send sends msg, which may contain ``` fences.
func (c *Client) Send(ctx context.Context, msg string) error {
	c.hits++
	fmt.Println("```", msg)
	return nil
}

func (c Client) hitsSoFar() int { return c.hits }

// Map is generic.
func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

type List[T any] struct{ items []T }

func (l *List[T]) Len() int { return len(l.items) }
