package main

import (
	"sort"
	"strconv"
)

const catalogSize = 100_000

var categories = [...]string{
	"Electronics", "Books", "Clothing", "Sports", "Home", "Garden", "Toys", "Food", "Beauty", "Automotive",
	"Music", "Movies", "Games", "Office", "Health", "Pets", "Travel", "Tools", "Jewelry", "Baby",
}

var brands = [...]string{
	"Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa",
	"Lambda", "Mu", "Nu", "Xi", "Omicron", "Pi", "Rho", "Sigma", "Tau", "Upsilon",
	"Phi", "Chi", "Psi", "Omega", "Apex", "Nexus", "Vertex", "Zenith", "Nadir", "Flux",
	"Forge", "Craft", "Build", "Make", "Create", "Design", "Style", "Form", "Shape", "Mold",
	"Cast", "Weld", "Fuse", "Bond", "Link", "Chain", "Wire", "Mesh", "Weave", "Knit",
}

var tagNames = [...]string{"sale", "new", "featured", "bestseller", "clearance", "limited", "popular", "exclusive"}

type product struct {
	ID          int
	SKU         string
	Category    string
	Brand       string
	Name        string
	Price       float64
	Stock       int
	Rating      float64
	Tags        []string
	Weight      float64
	Description string
	json        []byte // the product's JSON object, serialized once at start-up
}

// categoryIndex holds one category's products sorted by price; prices is a dense copy so that the
// binary search touches one cache-friendly slice instead of chasing product pointers.
type categoryIndex struct {
	prices   []float64
	products []*product
}

type catalog struct {
	products   []product // products[id-1]
	byCategory map[string]*categoryIndex
}

func pad6(id int) string {
	s := strconv.Itoa(id)
	for len(s) < 6 {
		s = "0" + s
	}
	return s
}

func newProduct(i int) product {
	id := i + 1
	cat := categories[i%len(categories)]
	brand := brands[i%len(brands)]
	ntags := 2 + i%3
	tags := make([]string, ntags)
	for j := range tags {
		tags[j] = tagNames[(i+j)%len(tagNames)]
	}
	p := product{
		ID:          id,
		SKU:         "SKU-" + pad6(id),
		Category:    cat,
		Brand:       brand,
		Name:        brand + " " + cat + " Item " + strconv.Itoa(id),
		Price:       1.0 + float64(i%99900)/100.0,
		Stock:       i % 501,
		Rating:      1.0 + float64(i%40)/10.0,
		Tags:        tags,
		Weight:      round2(float64(1+i%100) * 0.1),
		Description: "Quality " + cat + " by " + brand + ". SKU " + pad6(id) + ".",
	}
	p.json = p.appendJSON(make([]byte, 0, 256))
	return p
}

func (p *product) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, int64(p.ID), 10)
	b = append(b, `,"sku":`...)
	b = appendString(b, p.SKU)
	b = append(b, `,"category":`...)
	b = appendString(b, p.Category)
	b = append(b, `,"brand":`...)
	b = appendString(b, p.Brand)
	b = append(b, `,"name":`...)
	b = appendString(b, p.Name)
	b = append(b, `,"price":`...)
	b = appendFloat(b, p.Price)
	b = append(b, `,"stock":`...)
	b = strconv.AppendInt(b, int64(p.Stock), 10)
	b = append(b, `,"rating":`...)
	b = appendFloat(b, p.Rating)
	b = append(b, `,"tags":[`...)
	for j, t := range p.Tags {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendString(b, t)
	}
	b = append(b, `],"weight":`...)
	b = appendFloat(b, p.Weight)
	b = append(b, `,"description":`...)
	b = appendString(b, p.Description)
	return append(b, '}')
}

func newCatalog() *catalog {
	c := &catalog{products: make([]product, catalogSize), byCategory: make(map[string]*categoryIndex, len(categories))}
	for i := range c.products {
		c.products[i] = newProduct(i)
	}
	for _, name := range categories {
		c.byCategory[name] = &categoryIndex{}
	}
	for i := range c.products {
		p := &c.products[i]
		idx := c.byCategory[p.Category]
		idx.products = append(idx.products, p)
	}
	for _, idx := range c.byCategory {
		// Stable, so equal prices keep id order (the same order a stable sort of the list gives).
		sort.SliceStable(idx.products, func(a, b int) bool { return idx.products[a].Price < idx.products[b].Price })
		idx.prices = make([]float64, len(idx.products))
		for k, p := range idx.products {
			idx.prices[k] = p.Price
		}
	}
	return c
}

// product returns the product with this id, or nil outside 1 … catalogSize.
func (c *catalog) product(id int) *product {
	if id < 1 || id > len(c.products) {
		return nil
	}
	return &c.products[id-1]
}

// search returns the products of category with minPrice ≤ price ≤ maxPrice (maxPrice ≤ 0: no upper
// bound), sorted by price, as a sub-slice of the index: no copying.
func (c *catalog) search(category string, minPrice, maxPrice float64) []*product {
	idx := c.byCategory[category]
	if idx == nil {
		return nil
	}
	lo := sort.SearchFloat64s(idx.prices, minPrice) // first price >= minPrice
	hi := len(idx.prices)
	if maxPrice > 0 {
		hi = sort.Search(len(idx.prices), func(k int) bool { return idx.prices[k] > maxPrice })
	}
	if hi <= lo {
		return nil
	}
	return idx.products[lo:hi]
}
