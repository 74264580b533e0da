{{/* The chart's name, or nameOverride (upstream's value): app.kubernetes.io/name. */}}
{{- define "karpenter-ts.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The objects' name: fullnameOverride, else the release name, joined with the name unless it holds it. */}}
{{- define "karpenter-ts.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "karpenter-ts.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "karpenter-ts.selectorLabels" -}}
app.kubernetes.io/name: {{ include "karpenter-ts.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Every object's labels, with additionalLabels (upstream's value); the chart's own win a clash. */}}
{{- define "karpenter-ts.labels" -}}
{{- $own := include "karpenter-ts.selectorLabels" . | fromYaml -}}
{{- $_ := set $own "app.kubernetes.io/version" .Chart.AppVersion -}}
{{- $_ = set $own "app.kubernetes.io/managed-by" .Release.Service -}}
{{- $_ = set $own "helm.sh/chart" (printf "%s-%s" .Chart.Name .Chart.Version) -}}
{{- toYaml (merge $own (.Values.additionalLabels | default dict)) -}}
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

{{/*
Checks the values the schema cannot (what is required depends on the provider and the credential
mode) and fails once, listing every missing value by its full path: helm's `required` stops at
the first, so a platform team would fix one value per run. Included by deployment.yaml, so the
other templates read these values plainly.
*/}}
{{- define "karpenter-ts.validate" -}}
{{- $v := .Values -}}
{{- if not (has $v.provider (list "sim" "azure" "aws")) -}}
{{- fail (printf "provider must be sim, azure or aws, got %q" $v.provider) -}}
{{- end -}}
{{- /* [path, why] pairs, in values.yaml order. */ -}}
{{- $checks := list -}}
{{- if ne $v.provider "sim" -}}
{{- $checks = append $checks (list "clusterName" (printf "for provider %s" $v.provider)) -}}
{{- end -}}
{{- if eq $v.provider "azure" -}}
{{- $az := "for provider azure" -}}
{{- range $key := list "subscriptionId" "location" "nodeResourceGroup" "vnetSubnetID" "clusterEndpoint" -}}
{{- $checks = append $checks (list (printf "azure.%s" $key) $az) -}}
{{- end -}}
{{- $checks = append $checks (list "azure.kubeletBootstrapToken.secretName" (printf "%s: the name of a Secret in the release namespace holding the bootstrap token" $az)) -}}
{{- $checks = append $checks (list "azure.kubeletBootstrapToken.key" $az) -}}
{{- $checks = append $checks (list "azure.sshPublicKey" $az) -}}
{{- $mode := $v.azure.credential.mode -}}
{{- if and (eq $mode "workload-identity") $v.serviceAccount.create -}}
{{- $checks = append $checks (list "azure.credential.clientID" "for azure.credential.mode workload-identity: the client ID of the controller's user-assigned identity, annotated on the service account") -}}
{{- else if eq $mode "environment" -}}
{{- $sp := "for azure.credential.mode environment (a service principal)" -}}
{{- range $key := list "clientID" "tenantID" "clientSecret.secretName" "clientSecret.key" -}}
{{- $checks = append $checks (list (printf "azure.credential.%s" $key) $sp) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if eq $v.provider "aws" -}}
{{- $aw := "for provider aws" -}}
{{- range $key := list "region" "clusterEndpoint" -}}
{{- $checks = append $checks (list (printf "aws.%s" $key) $aw) -}}
{{- end -}}
{{- if and (eq $v.aws.credential.mode "irsa") $v.serviceAccount.create -}}
{{- $checks = append $checks (list "aws.credential.roleArn" "for aws.credential.mode irsa: the ARN of the controller's IAM role, annotated on the service account") -}}
{{- end -}}
{{- end -}}
{{- $missing := list -}}
{{- range $check := $checks -}}
{{- $path := index $check 0 -}}
{{- $value := $v -}}
{{- range $key := splitList "." $path -}}
{{- if kindIs "map" $value -}}{{- $value = get $value $key -}}{{- else -}}{{- $value = "" -}}{{- end -}}
{{- end -}}
{{- if not $value -}}
{{- $missing = append $missing (printf "- %s is required %s" $path (index $check 1)) -}}
{{- end -}}
{{- end -}}
{{- $problems := $missing -}}
{{- $pdb := $v.podDisruptionBudget | default dict -}}
{{- if and (not (kindIs "invalid" (index $pdb "minAvailable"))) (not (kindIs "invalid" (index $pdb "maxUnavailable"))) -}}
{{- $problems = append $problems "- podDisruptionBudget.minAvailable and podDisruptionBudget.maxUnavailable are both set (a PodDisruptionBudget takes one): set podDisruptionBudget.maxUnavailable to null to use minAvailable" -}}
{{- end -}}
{{- $memory := dig "limits" "memory" "" ($v.controller.resources | default dict) -}}
{{- $bytes := include "karpenter-ts.quantityBytes" $memory -}}
{{- if and $bytes (lt (float64 $bytes) (float64 354418688)) -}}
{{- /* A YAML number arrives as float64; show a whole one as written, not as 3.5e+08. */ -}}
{{- $shown := ternary (printf "%.0f" $memory) (toString $memory) (and (kindIs "float64" $memory) (eq (floor $memory) (float64 $memory))) -}}
{{- $problems = append $problems (printf "- controller.resources.limits.memory %s is under the controller's minimum of 338Mi (354418688 bytes): the controller would exit at start (--memory-limit too small); raise the limit, or null it for no limit" $shown) -}}
{{- end -}}
{{- if $problems -}}
{{- $where := ternary "\ndocs/azure-deploy.md says where each azure value comes from." "" (and (gt (len $missing) 0) (eq $v.provider "azure")) -}}
{{- $where = ternary "\ndocs/aws-deploy.md says where each aws value comes from." $where (and (gt (len $missing) 0) (eq $v.provider "aws")) -}}
{{- $title := ternary "required values are missing:" "values are missing or invalid:" (eq (len $problems) (len $missing)) -}}
{{- fail (printf "%s\n%s%s" $title (join "\n" $problems) $where) -}}
{{- end -}}
{{- end -}}

{{/*
A Kubernetes quantity (string or number) in bytes, rounded up to a whole byte as the downward API
gives it, as a decimal string; empty when it is not a quantity this template can read (the API
server judges those). Forms: plain, decimal fraction (.5, 5.), exponent (1e9, 1E9), the
suffixes n u m k M G T P E and Ki Mi Gi Ti Pi Ei. Fractions are float64: exact for whole numbers
of bytes under 2^53, within one part in 10^16 otherwise.
*/}}
{{- define "karpenter-ts.quantityBytes" -}}
{{- $q := toString . -}}
{{- $m := regexFindAll "^\\+?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+|[KMGTPE]i|[numkMGTPE])?$" $q -1 -}}
{{- if and $m (not (regexMatch "[eE]\\+?[0-9]{3,}$" $q)) -}}
{{- $number := regexFind "^\\+?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?" $q | trimPrefix "+" -}}
{{- $suffix := trimPrefix $number ($q | trimPrefix "+") -}}
{{- $times := get (dict "" 1.0 "k" 1e3 "M" 1e6 "G" 1e9 "T" 1e12 "P" 1e15 "E" 1e18 "Ki" 1024.0 "Mi" 1048576.0 "Gi" 1073741824.0 "Ti" 1099511627776.0 "Pi" 1125899906842624.0 "Ei" 1152921504606846976.0) $suffix -}}
{{- $over := get (dict "m" 1e3 "u" 1e6 "n" 1e9) $suffix -}}
{{- if $over -}}
{{- printf "%.0f" (ceil (divf (float64 $number) $over)) -}}
{{- else -}}
{{- printf "%.0f" (ceil (mulf (float64 $number) $times)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "true" when the controller authenticates with AKS workload identity, else empty. */}}
{{- define "karpenter-ts.workloadIdentity" -}}
{{- if and (eq .Values.provider "azure") (eq .Values.azure.credential.mode "workload-identity") -}}
true
{{- end -}}
{{- end -}}

{{/* "true" when the controller authenticates with IAM roles for service accounts, else empty. */}}
{{- define "karpenter-ts.irsa" -}}
{{- if and (eq .Values.provider "aws") (eq .Values.aws.credential.mode "irsa") -}}
true
{{- end -}}
{{- end -}}

{{/*
The aws provider's settings as container env, under the names readAwsSettings reads
(apps/controller/src/providers/aws-settings.ts). Required values are checked by
karpenter-ts.validate. Optional values are left out when empty so the controller's default
applies. Credentials are not here: the AWS SDK's default chain reads what EKS injects (IRSA or
Pod Identity).
*/}}
{{- define "karpenter-ts.awsEnv" -}}
{{- $aws := .Values.aws -}}
- name: AWS_REGION
  value: {{ $aws.region | quote }}
- name: CLUSTER_ENDPOINT
  value: {{ $aws.clusterEndpoint | quote }}
{{- with $aws.clusterCABundle }}
- name: CLUSTER_CA_BUNDLE
  value: {{ . | quote }}
{{- end }}
{{- if and (not (kindIs "invalid" $aws.vmMemoryOverheadPercent)) (ne (toString $aws.vmMemoryOverheadPercent) "") }}
- name: VM_MEMORY_OVERHEAD_PERCENT
  value: {{ $aws.vmMemoryOverheadPercent | quote }}
{{- end }}
{{- if and (not (kindIs "invalid" $aws.reservedENIs)) (ne (toString $aws.reservedENIs) "") }}
- name: RESERVED_ENIS
  value: {{ $aws.reservedENIs | quote }}
{{- end }}
{{- with $aws.interruptionQueue }}
- name: INTERRUPTION_QUEUE
  value: {{ . | quote }}
{{- end }}
{{- end -}}

{{/*
The azure provider's settings as container env, under the names readAzureSettings reads
(apps/controller/src/providers/azure-settings.ts). Required values are checked by
karpenter-ts.validate; secrets come only from Secrets (secretKeyRef). Optional values are left out
when empty so the controller's default applies.
*/}}
{{- define "karpenter-ts.azureEnv" -}}
{{- $a := .Values.azure -}}
- name: AZURE_SUBSCRIPTION_ID
  value: {{ $a.subscriptionId | quote }}
- name: AZURE_LOCATION
  value: {{ $a.location | quote }}
- name: AZURE_NODE_RESOURCE_GROUP
  value: {{ $a.nodeResourceGroup | quote }}
- name: VNET_SUBNET_ID
  value: {{ $a.vnetSubnetID | quote }}
- name: CLUSTER_ENDPOINT
  value: {{ $a.clusterEndpoint | quote }}
- name: KUBELET_BOOTSTRAP_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ $a.kubeletBootstrapToken.secretName | quote }}
      key: {{ $a.kubeletBootstrapToken.key | quote }}
- name: SSH_PUBLIC_KEY
  value: {{ $a.sshPublicKey | quote }}
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
{{- with $a.nodeOSDiskEncryptionSetID }}
- name: NODE_OSDISK_DISKENCRYPTIONSET_ID
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
- name: AZURE_CLIENT_ID
  value: {{ $c.clientID | quote }}
- name: AZURE_TENANT_ID
  value: {{ $c.tenantID | quote }}
- name: AZURE_CLIENT_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ $c.clientSecret.secretName | quote }}
      key: {{ $c.clientSecret.key | quote }}
{{- end }}
{{- end -}}
