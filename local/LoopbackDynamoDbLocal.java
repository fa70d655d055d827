import java.lang.reflect.Field;
import org.eclipse.jetty.server.AbstractNetworkConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local listening on 127.0.0.1 only. The jar's own entry point has no host option: it
 * builds Jetty's Server(port), which listens on every interface and so serves the tables to any
 * machine that can reach this one. This builds the same server from the same command-line
 * arguments, points its connectors at loopback before they open, and starts it.
 *
 * Run by local/dynamodb-local.ts with Java's source-file launcher:
 * java -cp DynamoDBLocal.jar:DynamoDBLocal_lib/* LoopbackDynamoDbLocal.java -inMemory -port 8000 ...
 */
public final class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    // The Jetty server is a private field; if a DynamoDB Local release renames it, this fails
    // loudly at start-up instead of silently listening everywhere.
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      ((AbstractNetworkConnector) connector).setHost("127.0.0.1");
    }
    // DynamoDBProxyServer.start() would also send start-up telemetry; Jetty's start() only serves.
    server.start();
    server.join();
  }
}
