// A virtual method reached only through the vtable in .data.rel.ro.
struct Shape {
	virtual ~Shape() {}
	virtual int area() const = 0;
};
struct Sq : Shape {
	int s;
	Sq(int s) : s(s) {}
	int area() const override { return s * s; }
};
__attribute__((noinline)) int use(const Shape *p) { return p->area(); }
int main(int c, char **) {
	Sq q(c);
	return use(&q);
}
