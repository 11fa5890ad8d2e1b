"""The tiny site: the smallest complete site on the kit, the worked example of docs/extending.md."""
