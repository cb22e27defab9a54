package classroom_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kubewalk/kubewalk/runtime/classroom"
)

// The instructor's side starts a host and shows its join line; a student joins with what the
// line says, follows the instructor's checkpoint and raises its stuck flag on the board.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	host, err := classroom.StartHost(ctx, classroom.HostConfig{Listen: "127.0.0.1:0", Title: "apiserver walk"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer host.Stop()
	<-host.Ready()
	// host.JoinLine() is what goes on the projector.

	stu, err := classroom.Join(ctx, classroom.StudentConfig{Addr: host.Addr().String(), Code: host.JoinCode(), Name: "ana"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stu.Stop()
	<-stu.Ready()

	host.Publish(classroom.Checkpoint{Phase: "authz", ID: "authz/rbac", Ordinal: 9})
	for {
		changed := stu.Changed()
		if st := stu.State(); st.Target().ID != "" {
			fmt.Println(st.Name, "runs forward to", st.Target().ID)
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			fmt.Println(ctx.Err())
			return
		}
	}

	stu.SetStuck(true)
	for {
		changed := host.Changed()
		if b := host.Board(); len(b.Students) == 1 && b.Students[0].Stuck {
			fmt.Println("board:", b.Students[0].Name, "is stuck")
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			fmt.Println(ctx.Err())
			return
		}
	}
	// Output:
	// ana runs forward to authz/rbac
	// board: ana is stuck
}
