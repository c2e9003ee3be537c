# Managed by provision.yml (k3s_server). k3s's kubectl reads /etc/rancher/k3s/k3s.yaml unless
# KUBECONFIG is set (k3s pkg/kubectl/main.go); root gets its own kubeconfig, whose context
# namespace is argocd, for kubectl and `argocd --core` alike.
if [ "$(id -u)" = 0 ] && [ -z "${KUBECONFIG:-}" ]; then
  export KUBECONFIG=/root/.kube/config
fi
