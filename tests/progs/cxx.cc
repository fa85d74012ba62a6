// cxx.cc - C++ names for the demangler: a namespace, a class template
// instantiated twice, and a const member function; double's work is twice
// long's.
#include <cstdio>
#include <cstdlib>

namespace geo {
template <typename T> class Matrix {
  public:
    explicit Matrix(T seed) : v_(seed) {}
    // n steps of a dependent multiply-add, too long to inline or unroll away.
    __attribute__((noinline)) T multiply(const Matrix &o, long n) const
    {
        T x = v_;
        for (long i = 0; i < n; i++)
            x = x * o.v_ + static_cast<T>(1);
        return x;
    }

  private:
    T v_;
};
} // namespace geo

static volatile double sink_d;
static volatile long sink_l;

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 150;
    geo::Matrix<double> a(1.0000001), b(0.9999999);
    geo::Matrix<long> c(3), d(5);
    for (long r = 0; r < rounds; r++) {
        sink_d = a.multiply(b, 2000000);
        sink_l = c.multiply(d, 2000000);
    }
    std::printf("cxx: %ld rounds\n", rounds);
    return 0;
}
