#include <vector>

namespace geo {
namespace detail {
inline int square(int x) { return x * x; }
}

template <typename T>
class Box {
public:
    explicit Box(T v) : value_(v) {}
    T get() const { return value_; }
    class Inner {
    public:
        int depth() const { return 1; }
    };
private:
    T value_;
};

int area(int w, int h) {
    return w * h;
}
}  // namespace geo
