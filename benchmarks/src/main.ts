console.log("bench placeholder");
