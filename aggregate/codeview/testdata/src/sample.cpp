// Sample C++ with namespaces, templates and nested classes.
#include <string>
#include <vector>

namespace outer {
namespace inner {

/// A generic box.
template <typename T>
class Box {
public:
    explicit Box(T value) : value_(value) {}

    /// Returns the value.
    T get() const { return value_; }

    struct Meta {
        int version;
        std::string name() const { return "meta"; }
    };

private:
    T value_;
};

template <typename T>
T twice(T x) {
    return x + x;
}

int free_function(int a);

}  // namespace inner

class Engine : public Base {
public:
    Engine();
    ~Engine() override;
    virtual void run() = 0;
    int count() const;

protected:
    enum class State { Idle, Running };
    State state_ = State::Idle;
};

Engine::Engine() {
    auto cb = [](int x) { return x * 2; };
}

int Engine::count() const {
    return 42;
}

using Name = std::string;

}  // namespace outer
