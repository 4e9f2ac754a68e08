package server

import "testing"

// TestEveryServerIsARunner: each service's server is its own process, so
// a run can tell one that exited by itself (run's serversUp).
func TestEveryServerIsARunner(t *testing.T) {
	for _, s := range []Server{&Redis{}, &Etcd{}, &ZooKeeper{}, &MariaDB{}, &Postgres{}, &PgBouncer{}, &KubeAPIServer{}} {
		if _, ok := s.(Runner); !ok {
			t.Errorf("%T is not a Runner", s)
		}
	}
}
