package dev.fleetbench.ycsb;

import java.net.URL;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The {@code DB} YCSB loads when the Launcher runs a user's binding ({@code fleetbench.binding.classpath}): it
 * creates the real binding ({@code fleetbench.binding.db}) from a {@link BindingClassLoader} over the user's
 * jars and forwards every call to it. YCSB core's own loader (DBFactory) only sees the bundle's classpath; this
 * class is the bridge. The binding runs with its loader as the thread's context class loader (drivers that use
 * ServiceLoader find their services in the user's jars). One loader per process and classpath, shared by the
 * client threads.
 */
public final class IsolatedDb extends DB {
  public static final String DB_CLASS = "fleetbench.binding.db";
  /**
   * The environment variable the loader agent puts a user binding's secret in, as Java properties text (the
   * secret's fields are properties of the binding, e.g. {@code couchbase.password}): added to the properties
   * the binding gets, in memory only — never in a property file, YCSB's command line or a log.
   */
  public static final String SECRET_PROPERTIES_ENV = "FLEETBENCH_BINDING_SECRET_PROPERTIES";

  private static final Map<String, BindingClassLoader> LOADERS = new HashMap<>();

  private DB inner;

  static synchronized BindingClassLoader loaderFor(String classpath) {
    return LOADERS.computeIfAbsent(classpath,
        cp -> new BindingClassLoader(BindingClassLoader.urlsOf(cp), IsolatedDb.class.getClassLoader()));
  }

  /** The user's DB instance (tests). */
  DB inner() {
    return inner;
  }

  @Override
  public void setProperties(Properties p) {
    super.setProperties(p);
    if (inner != null) {
      inner.setProperties(p);
    }
  }

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    String classpath = p.getProperty(Launcher.BINDING_CLASSPATH, "").trim();
    String dbClass = p.getProperty(DB_CLASS, "").trim();
    if (classpath.isEmpty() || dbClass.isEmpty()) {
      throw new DBException("fleetbench: " + IsolatedDb.class.getName() + " needs " + Launcher.BINDING_CLASSPATH
          + " and " + DB_CLASS + " (the Launcher sets both)");
    }
    BindingClassLoader loader;
    try {
      loader = loaderFor(classpath);
    } catch (IllegalArgumentException e) {
      throw new DBException(e.getMessage(), e);
    }
    Thread.currentThread().setContextClassLoader(loader);
    try {
      Class<?> c = Class.forName(dbClass, true, loader);
      if (!DB.class.isAssignableFrom(c)) {
        throw new DBException(DB_CLASS + ": " + dbClass + " from " + Arrays.toString(loader.getURLs())
            + " is not a site.ycsb.DB");
      }
      inner = (DB) c.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      URL[] urls = loader.getURLs();
      throw new DBException(DB_CLASS + ": cannot load " + dbClass + " from " + Arrays.toString(urls) + ": " + e, e);
    }
    inner.setProperties(withSecret(p, System.getenv(SECRET_PROPERTIES_ENV)));
    inner.init();
  }

  /** The properties with the secret's (properties text; null or empty: none) added; a secret field wins. */
  static Properties withSecret(Properties p, String secretText) throws DBException {
    if (secretText == null || secretText.isEmpty()) {
      return p;
    }
    Properties secret = new Properties();
    try {
      secret.load(new java.io.StringReader(secretText));
    } catch (java.io.IOException | IllegalArgumentException e) {
      // the message must not carry the text
      throw new DBException(SECRET_PROPERTIES_ENV + ": not Java properties text");
    }
    Properties merged = new Properties();
    merged.putAll(p);
    merged.putAll(secret);
    return merged;
  }

  @Override
  public void cleanup() throws DBException {
    if (inner != null) {
      inner.cleanup();
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    return inner.read(table, key, fields, result);
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    return inner.scan(table, startkey, recordcount, fields, result);
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return inner.update(table, key, values);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    return inner.insert(table, key, values);
  }

  @Override
  public Status delete(String table, String key) {
    return inner.delete(table, key);
  }
}
