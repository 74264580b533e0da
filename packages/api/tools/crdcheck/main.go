// crdcheck validates CustomResourceDefinition YAML files with the same code kube-apiserver runs
// when a CRD is created (structural schema, defaults, CEL compile + cost estimation).
package main

import (
	"context"
	"fmt"
	"os"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

func main() {
	scheme := runtime.NewScheme()
	_ = apiextensionsinternal.AddToScheme(scheme)
	_ = apiextensionsv1.AddToScheme(scheme)
	failed := false
	for _, f := range os.Args[1:] {
		data, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		var v1crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &v1crd); err != nil {
			fmt.Printf("%s: decode: %v\n", f, err)
			failed = true
			continue
		}
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1crd)
		var crd apiextensionsinternal.CustomResourceDefinition
		if err := scheme.Convert(&v1crd, &crd, nil); err != nil {
			panic(err)
		}
		errs := validation.ValidateCustomResourceDefinition(context.Background(), &crd)
		if len(errs) > 0 {
			failed = true
			for _, e := range errs {
				fmt.Printf("%s: %v\n", f, e)
			}
		} else {
			fmt.Printf("%s: OK\n", f)
		}
	}
	if failed {
		os.Exit(1)
	}
}
