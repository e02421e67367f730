// Copyright header that the skeleton drops.
package com.example.sample;

import java.util.List;
import java.util.function.Function;

/**
 * A sample class with nested types.
 */
@Deprecated
public class Sample<T> extends Base implements Runnable {
    private static final int MAX = 64;
    private final List<T> items;

    /** Creates a sample. */
    public Sample(List<T> items) {
        this.items = items;
    }

    @Override
    public void run() {
        Runnable r = () -> {
            System.out.println("```");
        };
        r.run();
    }

    static {
        System.loadLibrary("x");
    }

    public static class Builder {
        private int size;

        public Builder size(int n) {
            this.size = n;
            return this;
        }
    }

    interface Visitor<R> {
        R visit(Sample<?> s);

        default R fallback() {
            return null;
        }
    }

    enum Mode {
        FAST, SLOW;

        boolean quick() {
            return this == FAST;
        }
    }

    record Pair(int a, int b) {
        int sum() { return a + b; }
    }
}
