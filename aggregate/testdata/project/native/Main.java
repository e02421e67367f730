package demo;

import java.util.List;

/** Entry point. */
public class Main {
    static class Node {
        int value;
    }

    /** Sums the list. */
    public static int sum(List<Integer> xs) {
        int t = 0;
        for (int x : xs) {
            t += x;
        }
        return t;
    }

    public static void main(String[] args) {
        System.out.println(sum(List.of(1, 2, 3)));
    }
}
