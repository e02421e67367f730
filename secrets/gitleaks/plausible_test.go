package gitleaks

import (
	"context"
	"testing"
)

// Names and placeholders are not credentials; random values are.
func TestImplausible(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
	}{
		{"pricing-phase-1-limits", true},
		{"403-scope-union", true},
		{"new-checkout-flow-v2", false}, // v2: a word with a digit: kept
		{"YOUR_API_KEY", true},
		{"<your-token>", true},
		{"${API_TOKEN}", true},
		{"key-123456789", true},
		{"gsk_1234567890", true},
		{"0123456789abcdef0123456789abcdef", true},
		{"abcdef-1234-abcd-1234-abcdef123456", true},
		{"xxxxxxxxxxxxxxxx", true},
		{"secret_abc123DEF456", true}, // growthbook's API docs
		{"abc123def456", true},
		{"abc123dEf457", false}, // a run of two: kept
		{"abc1x3def456", false},
		{"sk-example-not-real", true},
		{"Ns04T5n9+59rl2x3SlNHtQ==", false},
		{"key_prod_b118a91f4800c2c6", false},
		{"WnGeRgTPwEu4", false},
		{"js.y6nea.yo6e8isxplieotd6zxyeu5", false},
		{"8f3a9c2e7b1d4f6a0e5c9b2d7a1f3e8c", false},
		{"AKIAZ7Q3XH6N2LMPQ4RT", false},
	} {
		if got := implausible("generic-api-key", tc.value); got != tc.want {
			t.Errorf("implausible(%q) = %v, want %v", tc.value, got, tc.want)
		}
	}
}

// The scan no longer reports a feature flag's key or a placeholder in a
// curl command, and still reports a random key under the same name.
func TestGenericRuleNames(t *testing.T) {
	sc, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text  string
		found int
	}{
		{`export const PRICING_PHASE_1_FLAG_KEY = "pricing-phase-1-limits";` + "\n", 0},
		{`curl -H "Authorization: Bearer YOUR_API_KEY" https://api.example.com` + "\n", 0},
		{`    -H "Authorization: Bearer secret_abc123DEF456"` + "\n", 0},
		{`export const PRICING_API_KEY = "8f3a9c2e7b1d4f6a0e5c9b2d7a1f3e8c";` + "\n", 1},
		{`curl -H "Authorization: Bearer Zq8wLr2mNx5vTb7kPj3c" https://api.example.com` + "\n", 1},
	} {
		got, err := sc.Scan(context.Background(), "a.ts", tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.found {
			t.Errorf("%q: %d findings %+v, want %d", tc.text, len(got), got, tc.found)
		}
	}
}
