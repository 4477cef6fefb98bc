package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The yardstick for static files: nginx from Debian's package serving the
// same dist/ with a minimal configuration (precompressed .gz files,
// try_files for a route's index.html, an access log as serve keeps one),
// as many workers as CPUs.
const nginxConf = `worker_processes auto;
pid {{tmp}}/nginx.pid;
error_log {{tmp}}/nginx-error.log;
events { worker_connections 1024; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	access_log {{tmp}}/nginx-access.log combined buffer=64k flush=1s;
	client_body_temp_path {{tmp}}/nginx-body;
	proxy_temp_path {{tmp}}/nginx-proxy;
	fastcgi_temp_path {{tmp}}/nginx-fastcgi;
	uwsgi_temp_path {{tmp}}/nginx-uwsgi;
	scgi_temp_path {{tmp}}/nginx-scgi;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 1000000;
	server {
		listen {{addr}};
		root {{dist}};
		gzip_static on;
		location / { try_files $uri $uri/index.html =404; }
	}
}
`

// startNginx runs nginx in the foreground on addr, serving dist; stop
// ends it.
func startNginx(tmp, addr, dist string) (*exec.Cmd, error) {
	nginx, err := needTool("nginx", "nginx", "/usr/sbin/nginx")
	if err != nil {
		return nil, err
	}
	// Run as root, nginx's workers read the files as nobody: the
	// temporary folder must let them through.
	if err := os.Chmod(tmp, 0o711); err != nil {
		return nil, err
	}
	conf := strings.NewReplacer("{{tmp}}", tmp, "{{addr}}", addr, "{{dist}}", dist).Replace(nginxConf)
	confFile := filepath.Join(tmp, "nginx.conf")
	if err := os.WriteFile(confFile, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	errLog := filepath.Join(tmp, "nginx-error.log")
	cmd, err := start(filepath.Join(tmp, "nginx.log"), nginx, "-p", tmp, "-e", errLog, "-c", confFile, "-g", "daemon off;")
	if err != nil {
		return nil, fmt.Errorf("starting nginx: %w", err)
	}
	if err := waitUp("http://" + addr + "/home"); err != nil {
		stop(cmd)
		log, _ := os.ReadFile(errLog)
		return nil, fmt.Errorf("nginx: %w; its error log:\n%s", err, tail(log, 10))
	}
	return cmd, nil
}
