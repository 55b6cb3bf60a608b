package redisguard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The cluster tests run against a Redis Cluster of three masters, no
// replicas, that TestMain starts on free loopback ports (startCluster) and
// stops afterwards, each node a redis-server of the tests as any other
// (see startProcess), its node file in its own directory. Without
// redis-server and redis-cli, or if the cluster does not form, they skip,
// unless REDISGUARD_REQUIRE_CLUSTER=1, which makes them fail (CI sets it).
var (
	testCluster   *cluster // nil if there is none
	clusterReason string   // why there is none
)

// cluster is the tests' Redis Cluster.
type cluster struct {
	nodes []*server
	addrs []string
}

// clusterNodes is the number of masters of the tests' cluster.
const clusterNodes = 3

// startCluster starts clusterNodes redis-servers in cluster mode, joins
// them into one cluster with redis-cli --cluster create, which gives each a
// third of the slots, and returns once every node says cluster_state:ok.
// On failure it stops what it started.
func startCluster() (*cluster, error) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, fmt.Errorf("redis-cli is not installed: %w", err)
	}
	c := &cluster{}
	ok := false
	defer func() {
		if !ok {
			c.stop()
		}
	}()
	for range clusterNodes {
		bus, err := freePort()
		if err != nil {
			return nil, err
		}
		// The bus port is chosen too: the default, the port plus 10000,
		// may be taken or past 65535.
		s, err := startServer(0, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", "5000")
		if err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, s)
		c.addrs = append(c.addrs, s.addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append(append([]string{"--cluster", "create"}, c.addrs...), "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("redis-cli --cluster create: %w: %s", err, out)
	}
	if err := c.waitOK(ctx); err != nil {
		return nil, err
	}
	ok = true
	return c, nil
}

// waitOK returns once every node reports cluster_state:ok, or ctx's error.
// It asks every 10 ms, on a ticker.
func (c *cluster) waitOK(ctx context.Context) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for _, addr := range c.addrs {
		node := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		for {
			info, err := node.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			select {
			case <-ctx.Done():
				node.Close()
				return fmt.Errorf("the cluster node %s did not reach cluster_state:ok: %v (%s)", addr, ctx.Err(), info)
			case <-tick.C:
			}
		}
		node.Close()
	}
	return nil
}

// stop stops every node and removes its directory.
func (c *cluster) stop() error {
	var errs []error
	for _, s := range c.nodes {
		s.stop()
		errs = append(errs, os.RemoveAll(s.dir))
	}
	return errors.Join(errs...)
}

// requiredCluster reports whether the environment wants the cluster tests
// to fail rather than skip when there is no cluster.
func requiredCluster() bool { return os.Getenv("REDISGUARD_REQUIRE_CLUSTER") == "1" }

// needCluster returns the addresses of the tests' cluster, or skips t
// (fails it, under REDISGUARD_REQUIRE_CLUSTER=1) if there is none.
func needCluster(t testing.TB) []string {
	t.Helper()
	if testCluster != nil {
		return testCluster.addrs
	}
	if requiredCluster() {
		t.Fatalf("no Redis Cluster, and REDISGUARD_REQUIRE_CLUSTER=1: %s", clusterReason)
	}
	t.Skipf("no Redis Cluster (install redis-server and redis-cli): %s", clusterReason)
	return nil
}

// newClusterClient returns a cluster client of the tests' cluster, closed
// when t ends: one per instance of a fleet. Like newClient's, it makes no
// retries of its own.
func newClusterClient(t testing.TB) *redis.ClusterClient {
	t.Helper()
	c := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                 needCluster(t),
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
	})
	t.Cleanup(func() { c.Close() })
	return c
}
