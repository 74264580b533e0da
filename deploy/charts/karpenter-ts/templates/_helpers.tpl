{{- define "karpenter-ts.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "karpenter-ts.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "karpenter-ts.labels" -}}
{{ include "karpenter-ts.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "karpenter-ts.serviceAccountName" -}}
{{- default (include "karpenter-ts.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "karpenter-ts.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}
{{- end -}}

{{- define "karpenter-ts.validate" -}}
{{- if not (has .Values.provider (list "sim" "azure" "aws")) -}}
{{- fail (printf "provider must be sim, azure or aws, got %q" .Values.provider) -}}
{{- end -}}
{{- if and (ne .Values.provider "sim") (not .Values.clusterName) -}}
{{- fail (printf "clusterName is required for provider %s" .Values.provider) -}}
{{- end -}}
{{- end -}}

{{/* "true" when the controller authenticates with AKS workload identity, else empty. */}}
{{- define "karpenter-ts.workloadIdentity" -}}
{{- if and (eq .Values.provider "azure") (eq .Values.azure.credential.mode "workload-identity") -}}
true
{{- end -}}
{{- end -}}

{{/*
The azure provider's settings as container env, under the names readAzureSettings reads
(apps/controller/src/providers/azure-settings.ts). Required values fail the rendering, naming the
value; secrets come only from Secrets (secretKeyRef). Optional values are left out when empty so
the controller's default applies.
*/}}
{{- define "karpenter-ts.azureEnv" -}}
{{- $a := .Values.azure -}}
{{- $need := "is required for provider azure (see docs/azure-deploy.md)" -}}
- name: AZURE_SUBSCRIPTION_ID
  value: {{ required (printf "azure.subscriptionId %s" $need) $a.subscriptionId | quote }}
- name: AZURE_LOCATION
  value: {{ required (printf "azure.location %s" $need) $a.location | quote }}
- name: AZURE_NODE_RESOURCE_GROUP
  value: {{ required (printf "azure.nodeResourceGroup %s" $need) $a.nodeResourceGroup | quote }}
- name: VNET_SUBNET_ID
  value: {{ required (printf "azure.vnetSubnetID %s" $need) $a.vnetSubnetID | quote }}
- name: CLUSTER_ENDPOINT
  value: {{ required (printf "azure.clusterEndpoint %s" $need) $a.clusterEndpoint | quote }}
- name: KUBELET_BOOTSTRAP_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ required (printf "azure.kubeletBootstrapToken.secretName %s: the name of a Secret in the release namespace holding the bootstrap token" $need) $a.kubeletBootstrapToken.secretName | quote }}
      key: {{ required (printf "azure.kubeletBootstrapToken.key %s" $need) $a.kubeletBootstrapToken.key | quote }}
- name: SSH_PUBLIC_KEY
  value: {{ required (printf "azure.sshPublicKey %s" $need) $a.sshPublicKey | quote }}
{{- with $a.dnsServiceIP }}
- name: DNS_SERVICE_IP
  value: {{ . | quote }}
{{- end }}
{{- with $a.nodeIdentities }}
- name: NODE_IDENTITIES
  value: {{ join "," . | quote }}
{{- end }}
{{- with $a.kubeletIdentityClientID }}
- name: KUBELET_IDENTITY_CLIENT_ID
  value: {{ . | quote }}
{{- end }}
{{- /* An empty plugin or mode is meaningful ("" mode = pods on the node subnet): only null is left out. */}}
{{- if not (kindIs "invalid" $a.networkPlugin) }}
- name: NETWORK_PLUGIN
  value: {{ $a.networkPlugin | quote }}
{{- end }}
{{- if not (kindIs "invalid" $a.networkPluginMode) }}
- name: NETWORK_PLUGIN_MODE
  value: {{ $a.networkPluginMode | quote }}
{{- end }}
{{- if and (not (kindIs "invalid" $a.vmMemoryOverheadPercent)) (ne (toString $a.vmMemoryOverheadPercent) "") }}
- name: VM_MEMORY_OVERHEAD_PERCENT
  value: {{ $a.vmMemoryOverheadPercent | quote }}
{{- end }}
{{- with $a.linuxAdminUsername }}
- name: LINUX_ADMIN_USERNAME
  value: {{ . | quote }}
{{- end }}
{{- with $a.nodeImageVersion }}
- name: AKS_NODE_IMAGE_VERSION
  value: {{ . | quote }}
{{- end }}
{{- with $a.systemNamespace }}
- name: SYSTEM_NAMESPACE
  value: {{ . | quote }}
{{- end }}
{{- $c := $a.credential }}
- name: AZURE_CREDENTIAL_MODE
  value: {{ $c.mode | quote }}
{{- if eq $c.mode "managed-identity" }}
{{- with $c.clientID }}
- name: AZURE_CLIENT_ID
  value: {{ . | quote }}
{{- end }}
{{- else if eq $c.mode "environment" }}
{{- $sp := "is required for azure.credential.mode environment (a service principal)" }}
- name: AZURE_CLIENT_ID
  value: {{ required (printf "azure.credential.clientID %s" $sp) $c.clientID | quote }}
- name: AZURE_TENANT_ID
  value: {{ required (printf "azure.credential.tenantID %s" $sp) $c.tenantID | quote }}
- name: AZURE_CLIENT_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ required (printf "azure.credential.clientSecret.secretName %s" $sp) $c.clientSecret.secretName | quote }}
      key: {{ required (printf "azure.credential.clientSecret.key %s" $sp) $c.clientSecret.key | quote }}
{{- end }}
{{- end -}}
