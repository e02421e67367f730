package gitleaks

import (
	"context"
	"testing"
)

// TestURLPassword: the password of a URL's user information is found, and
// only the password is the secret; placeholders, variables and the
// documentation hosts are not findings.
func TestURLPassword(t *testing.T) {
	s := scanner(t, Options{})
	for _, tc := range []struct {
		text   string
		secret string // "" when nothing is to be found
	}{
		{"DATABASE_URL=postgres://app:Zq8v2LmT9xKw@db.internal:5432/app", "Zq8v2LmT9xKw"},
		{`dsn = "mysql://root:k7Rw-9vTq2Lx@10.0.0.7:3306/shop"`, "k7Rw-9vTq2Lx"},
		{"mongodb+srv://svc:Hx7pQ2rTz9wL@cluster0.ab12c.mongodb.net/prod", "Hx7pQ2rTz9wL"},
		{"REDIS_URL=redis://:d8Fj3kLq0pZx@cache.internal:6379/0", "d8Fj3kLq0pZx"},
		{"amqp://worker:N4vB7cX1zQ9m@rabbit.internal:5672/", "N4vB7cX1zQ9m"},
		{"git clone https://deploy:hunter2xyz@git.internal/acme/app.git", "hunter2xyz"},
		{"postgresql://app:Xk%40v9%3AqLz2@db:5432/app", "Xk%40v9%3AqLz2"},
		// placeholders
		{"postgres://user:password@localhost:5432/db", ""},
		{"postgres://postgres:postgres@localhost:5432/postgres", ""},
		{"mysql://root:${MYSQL_PASSWORD}@db:3306/app", ""},
		{"redis://:$REDIS_PASSWORD@cache:6379", ""},
		{"amqp://guest:guest@localhost:5672/", ""},
		{"https://user:<password>@host.internal/path", ""},
		{"postgres://app:****@db:5432/app", ""},
		{"postgres://app:%s@%s:5432/app", ""},
		{"https://alice:Zq8v2LmT9xKw@example.com/private", ""},
		{"mysql://app:Zq8v2LmT9xKw@db.example.org/app", ""},
		{"postgres://app:changeme@db:5432/app", ""},
		{"http://jane:p%40ssword@db.internal", ""},
		{"http://user:pa%2Fssword@dummy.internal/", ""},
		{"http://My%20User:My%20Pass@dummy.internal/", ""},
		{"http://user^:passwo^rd@foo.internal/", ""},
		// not a password: a port, a path, an e-mail address
		{"http://localhost:8080/api", ""},
		{"see https://github.com/acme/app@v1.2.3", ""},
		{"mailto:someone@mail.internal", ""},
	} {
		t.Run(tc.text, func(t *testing.T) {
			found, err := s.Scan(context.Background(), "config.env", tc.text)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range found {
				if f.Rule == urlPasswordRule {
					got = append(got, tc.text[f.Start:f.End])
				}
			}
			switch {
			case tc.secret == "" && len(got) > 0:
				t.Errorf("found %q, want nothing", got)
			case tc.secret != "" && (len(got) != 1 || got[0] != tc.secret):
				t.Errorf("found %q, want [%q]", got, tc.secret)
			}
		})
	}
}
