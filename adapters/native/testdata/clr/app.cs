// The .NET fixture of rea-native's CIL tests: types with fields, a nested
// class, an interface and a struct, a generic method, a switch, exception
// handlers, a lambda, P/Invoke and calls into mscorlib.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Rea.Fixture {
  public interface IShape { double Area(); }

  public struct Point {
    public int X, Y;
    public Point(int x, int y) { X = x; Y = y; }
  }

  public class Circle : IShape {
    public static int Count;
    private readonly double r;
    public Circle(double r) { this.r = r; Count++; }
    public double Area() { return Math.PI * r * r; }

    public class Builder {
      public double R = 1.5;
      public Circle Build() { return new Circle(R); }
    }
  }

  public static class Program {
    [DllImport("libc", EntryPoint = "getpid")] static extern int GetPid();
    [DllImport("libc")] static extern IntPtr strlen(string s);

    static string Classify(int n) {
      switch (n) {
        case 0: return "zero";
        case 1: return "one";
        case 2: return "two";
        case 3: return "three";
        case 4: return "four";
        default: return "many";
      }
    }

    static T First<T>(List<T> xs) { return xs[0]; }

    static int Guarded(string s) {
      try { return int.Parse(s); }
      catch (FormatException) { return -1; }
      finally { Console.WriteLine("parsed"); }
    }

    public static int Main(string[] args) {
      var shapes = new List<IShape> { new Circle.Builder().Build(), new Circle(2) };
      double total = 0;
      foreach (var s in shapes) total += s.Area();
      Func<int, int> sq = x => x * x;
      Console.WriteLine("total {0} {1} {2}", total, Classify(args.Length), sq(3));
      Console.WriteLine("h\u00e9llo w\u00f6rld \u2713");
      long big = 1L << 40;
      return (int)(Guarded("42") + First(new List<int> { 7 }) + GetPid() % 2 + big % 3 + new Point(1, 2).X + (long)strlen("abc"));
    }
  }
}
