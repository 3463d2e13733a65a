package dev.fleetbench.ycsb;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The class loader of a user's YCSB binding ({@code fleetbench.binding.classpath}): its jars first (so the
 * binding's own dependencies win over the bundle's), except for YCSB core ({@code site.ycsb.*}), HdrHistogram
 * ({@code org.HdrHistogram.*}) and the JDK, which always come from the parent: a binding jar that bundles its
 * own copy of them still runs on YCSB 0.17.0 core and HdrHistogram 2.1.12, the versions whose output fleetbench
 * reads.
 */
public final class BindingClassLoader extends URLClassLoader {
  /** Class and resource name prefixes always taken from the parent. */
  static final List<String> PARENT_FIRST = List.of("site.ycsb.", "org.HdrHistogram.");

  static {
    ClassLoader.registerAsParallelCapable();
  }

  private final ClassLoader platform = ClassLoader.getPlatformClassLoader();

  public BindingClassLoader(URL[] urls, ClassLoader parent) {
    super("fleetbench-binding", urls, parent);
  }

  /**
   * The jars of a {@code fleetbench.binding.classpath} value: entries separated by commas or the platform's
   * path separator, each a jar file or a directory (every {@code *.jar} in it, sorted by name, and the
   * directory itself for loose classes). A missing entry is an error naming it.
   */
  public static URL[] urlsOf(String classpath) {
    List<URL> out = new ArrayList<>();
    String[] parts = classpath.split("[," + File.pathSeparator + "]");
    for (String raw : parts) {
      String s = raw.trim();
      if (s.isEmpty()) {
        continue;
      }
      File f = new File(s);
      try {
        if (f.isDirectory()) {
          out.add(f.toURI().toURL());
          File[] jars = f.listFiles((d, n) -> n.endsWith(".jar"));
          if (jars != null) {
            Arrays.sort(jars);
            for (File j : jars) {
              out.add(j.toURI().toURL());
            }
          }
        } else if (f.isFile()) {
          out.add(f.toURI().toURL());
        } else {
          throw new IllegalArgumentException(Launcher.BINDING_CLASSPATH + ": '" + s
              + "' is neither a jar file nor a directory");
        }
      } catch (MalformedURLException e) {
        throw new IllegalArgumentException(Launcher.BINDING_CLASSPATH + ": '" + s + "': " + e.getMessage(), e);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(Launcher.BINDING_CLASSPATH + ": no jar or directory in '" + classpath
          + "'");
    }
    return out.toArray(new URL[0]);
  }

  static boolean parentFirst(String className) {
    for (String p : PARENT_FIRST) {
      if (className.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        if (parentFirst(name)) {
          c = getParent().loadClass(name);
        } else {
          try {
            c = platform.loadClass(name); // the JDK (java.*, javax.*, jdk.*, ...) is never overridden
          } catch (ClassNotFoundException notJdk) {
            try {
              c = findClass(name);
            } catch (ClassNotFoundException notOurs) {
              c = getParent().loadClass(name);
            }
          }
        }
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }

  private static boolean parentFirstResource(String name) {
    String asClass = name.replace('/', '.');
    return parentFirst(asClass);
  }

  @Override
  public URL getResource(String name) {
    if (parentFirstResource(name)) {
      return getParent().getResource(name);
    }
    URL u = platform.getResource(name);
    if (u == null) {
      u = findResource(name);
    }
    return u != null ? u : getParent().getResource(name);
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    if (parentFirstResource(name)) {
      return getParent().getResources(name);
    }
    List<URL> all = new ArrayList<>(Collections.list(findResources(name)));
    all.addAll(Collections.list(getParent().getResources(name)));
    return Collections.enumeration(all);
  }
}
