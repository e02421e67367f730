package cache_test

import (
	"fmt"
	"log"
	"os"

	"github.com/ctxaudit/ctx/cache"
)

// A key names everything its value is derived from; a value is used only
// when it is read back under exactly its key and checks out.
func Example() {
	dir, err := os.MkdirTemp("", "ctx-cache-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	c, err := cache.Open(dir, 0) // or cache.DefaultDir()
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close() // trims the cache to its bound when it must

	key := "skeleton\ncodeview python grammar\n<BLAKE3 of the file>"
	if _, ok := c.Get(key); !ok {
		c.Put(key, []byte("def main(): ..."))
	}
	v, ok := c.Get(key)
	fmt.Printf("%s %v\n", v, ok)
	_, ok = c.Get(key + " changed")
	fmt.Println(ok)
	fmt.Printf("%+v\n", c.Stats())
	// Output:
	// def main(): ... true
	// false
	// {Hits:1 Misses:2 Corrupt:0 Untrusted:0 Puts:1 Failed:0}
}
